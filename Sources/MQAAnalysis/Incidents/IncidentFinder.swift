import MQABase
import MQAModel

/// Finds a meeting's incidents (Docs/incidents.md has the rule in words).
///
/// 1. **Signals** per participant: each stall they saw, each run of their
///    recomputed tier at poor/bad, each run of warm reports with loss > 5 %
///    or RTT > 400 ms (the issue thresholds), each disconnect with an error
///    or followed by a reconnect (to the reconnect).
/// 2. **Publisher-side stalls.** A stall is *shared* by the one rule the
///    track report uses too (`SharedStalls`): every other subscriber
///    rendering the track at its start had a stall of it overlapping within
///    ±2 s. Shared stalls are taken from
///    their subscribers' signals and clustered per track (a stall joins the
///    cluster when it starts before the cluster's end + 2 s): they belong
///    to the track.
/// 3. **Late loss.** A viewer's short loss run just as a stream the sender
///    already explains came back is the sender's gap counted late
///    (`LateLoss`): taken out of the viewer's signals, with the low-tier
///    run it began, and named in the evidence of the track's incident.
/// 4. **Merging.** Per participant, and per track for shared clusters,
///    signals sorted by start join the open incident when they start at
///    most `mergeGapMs` (10 s) after its end.
/// 5. **Cause**, the first that applies: `publisher` for a track's
///    incident; `disconnect` (a disconnect is in it); `own_device` (no
///    loss, and every RTT spike measured while the client's own reports
///    came seconds late: the device fell behind); `publisher` (on a mesh
///    call, a loss spike that only the viewer's connection from one sender
///    had, while another of its connections received cleanly, another
///    viewer's connection from that sender lost packets too and none
///    received it cleanly: `MeshLoss`; the same for an RTT spike without
///    loss, the sender's own connections corroborating too); `own_network` (the
///    participant's own loss, RTT or low tier is in it; or, for stalls, a
///    rise against the participant's own baseline within 2 s, or a
///    `network_change` in the 10 s before); `own_device`, or `own_network`
///    on the CDN (for each stall more of the track's other viewers played
///    it through than stalled with it: the sender sent the frames, this
///    viewer did not show them; not on P2P, where each viewer gets its own
///    stream); `publisher` (every stall lies within 2 s
///    of a loss, RTT, low-tier or disconnect signal of its publisher: the
///    sender's uplink degraded); `own_device` (3 or more tracks stalled
///    within 2 s with a clean network: decoder or CPU); `publisher` (one
///    track stalled while the participant's other tracks kept playing,
///    both networks clean: only the sender can freeze one tile alone);
///    else `unknown`. Docs/incidents.md numbers them 1–10. Publisher-side
///    incidents carry the publisher's own loss and RTT over the window.
///
/// Deterministic: ties sort by uid, kind and track; the output is ordered by
/// start, then uid, then track.
public enum IncidentFinder {
    /// Signals this close (or overlapping) are one incident.
    public static let mergeGapMs: Int64 = 10_000
    /// Stalls this close line up (the track report's `alignmentToleranceMs`).
    public static let alignmentMs: Int64 = 2000
    /// The fleet score's weight of a disconnect (`FleetScore`).
    public static let msPerDisconnect = Int64(FleetScore.secondsPerAbnormalDisconnect * 1000)

    public static func find(_ log: MeetingLog, _ analysis: MeetingAnalysis) -> [Incident] {
        var finder = Collector(log, analysis)
        for client in log.clients { finder.add(client) }
        return finder.incidents()
    }

    /// Finds a meeting's incidents reading its clients one at a time: `add`
    /// each client of the log, in order, with its reports (the log itself
    /// may hold none: a stored meeting read client by client), then
    /// `incidents()`. Of a client's reports it keeps only what the cause
    /// rules read later (`WarmFigures`), so a 2,000-viewer hour never holds
    /// every viewer's reports at once.
    public struct Collector {
        let log: MeetingLog
        var signals: [IncidentSignal] = []
        var context: CauseContext
        /// Per participant: their stalls that are not shared, each widened
        /// by the alignment, merged (a rise is only ever read near one of
        /// them: a shared stall is the track's incident, which reads none).
        let stallWindows: [String: [(lo: Int64, hi: Int64)]]
        /// Per participant: where the late-loss rule may read their warm
        /// reports (from a shared stall's start to the stream's return and
        /// 2 s after), merged.
        let quietWindows: [String: [(lo: Int64, hi: Int64)]]
        /// Whose warm reports a publisher's figures may read, whole.
        let senders: Set<String>

        /// `log`: the meeting's log (its reports are not read: each client's
        /// come with `add`); `analysis`: its analysis.
        public init(_ log: MeetingLog, _ analysis: MeetingAnalysis) {
            self.log = log
            let sharing = SharedStalls(analysis)
            context = CauseContext(analysis: analysis, sharing: sharing)
            var stalls: [String: [(lo: Int64, hi: Int64)]] = [:]
            var quiet: [String: [(lo: Int64, hi: Int64)]] = [:]
            for s in analysis.subscriptions {
                for x in s.stalls {
                    // A 20,000-viewer webinar's 60,000 stalls were all shared:
                    // rises kept near them were 7.6 MB never read.
                    guard sharing.isShared(x, of: s) else {
                        stalls[s.subscriber, default: []].append((x.start - alignmentMs, x.end + alignmentMs))
                        continue
                    }
                    // `LateLoss` (shared stalls only): an open stall's stream
                    // comes back with the next subscription, at most
                    // `mergeGapMs` after the end.
                    let back = x.open ? max(x.end, s.endTs) + mergeGapMs : x.end
                    quiet[s.subscriber, default: []].append((x.start - alignmentMs, back + alignmentMs))
                }
            }
            stallWindows = stalls.mapValues(Collector.merged)
            quietWindows = quiet.mapValues(Collector.merged)
            // A track's publisher, or a mesh connection's sender (`MeshLoss`).
            var senders = Set(analysis.subscriptions.map(\.publisher))
            for links in log.received.values { for link in links { senders.formUnion(link.peers) } }
            self.senders = senders
        }

        /// Ranges sorted and joined where they touch or overlap.
        static func merged(_ ranges: [(lo: Int64, hi: Int64)]) -> [(lo: Int64, hi: Int64)] {
            var out: [(lo: Int64, hi: Int64)] = []
            for r in ranges.sorted(by: { $0.lo < $1.lo }) {
                if let last = out.last, r.lo <= last.hi { out[out.count - 1].hi = max(last.hi, r.hi) } else { out.append(r) }
            }
            return out
        }

        /// Whether `[start, end]` meets one of the sorted, disjoint `windows`.
        static func meets(_ windows: [(lo: Int64, hi: Int64)], _ start: Int64, _ end: Int64) -> Bool {
            let k = windows.partitionPoint { $0.hi >= start }
            return k < windows.count && windows[k].lo <= end
        }

        /// The next client of the log, with its reports.
        public mutating func add(_ client: ClientLog) {
            // Reports held in memory are read without any failure.
            try! add(client, reports: ConnectedReports(client))
        }

        /// The next client of the log, its reports read from `reports`
        /// (`client.reports` is not read: a stored client of millions of
        /// reports is walked block by block); throws what reading them
        /// throws.
        public mutating func add(_ client: ClientLog, reports: ConnectedReports) throws {
            signals += IncidentSignal.disconnects(client)
            context.networkChanges[client.uid] = IncidentSignal.networkChanges(client)
            guard !context.analysis.isCDN else { return }
            signals += IncidentSignal.lowTier(client.uid, context.analysis.timelines[client.uid])
            // A noisy 500-viewer hour made 440,000 rises: those far from
            // the participant's stalls are dropped as they are found.
            let windows = stallWindows[client.uid]
            let whole = senders.contains(client.uid)
            let quiet = quietWindows[client.uid] ?? []
            let spikes = try IncidentSignal.spikes(
                client.uid, reports, config: context.analysis.config,
                keepRise: { start, end in windows.map { Collector.meets($0, start, end) } ?? false },
                keepFigure: { ts in whole || Collector.meets(quiet, ts, ts) })
            signals += spikes.strong
            if windows != nil { context.rises[client.uid] = spikes.rises }
            context.reports[client.uid] = spikes.figures
        }

        /// The incidents of the clients added, in start order; the signals
        /// are handed over, not copied (the collector keeps none: 100,000
        /// incidents' signals held twice were 44 MB of a webinar's report).
        public consuming func incidents() -> [Incident] {
            var signals: [IncidentSignal] = []
            swap(&signals, &self.signals)
            var context = context
            let analysis = context.analysis
            if !analysis.isCDN && !log.received.isEmpty { context.mesh = MeshLoss(received: log.received) }
            if !analysis.isCDN {
                var late = LateLoss(consume signals, subscriptions: analysis.subscriptions, sharing: context.sharing, reports: context.reports)
                signals = late.kept
                late.kept = []
                context.late = late
            }
            // Past the late losses, only a sender's figures are read (a
            // publisher's evidence): a 20,000-viewer webinar's viewers'
            // were 8.6 MB held through the incidents' making.
            context.reports = context.reports.filter { senders.contains($0.key) }
            self.context.reports = [:]
            let stalls = stallSignals(analysis.subscriptions, context.sharing)
            signals += stalls.filter { !$0.shared }
            // Room for as many incidents as signals (each has one at least),
            // reserved once: grown by doubling, the list's old and new
            // copies of 100,000 incidents (~600 bytes each) coexisted. Room
            // never written is never touched, so it takes no memory.
            var incidents: [Incident] = []
            incidents.reserveCapacity(signals.count + stalls.count { $0.shared })
            // Consumed, not copied: the grouping sorts the one array in place.
            let byUid = SignalsByUid(consume signals)
            for (uid, range) in byUid.runs {
                for group in merge(Array(byUid.signals[range])) { incidents.append(incident(uid, group, byUid, context)) }
            }
            let byTrack = Dictionary(grouping: stalls.filter(\.shared), by: { [$0.uid, $0.track ?? ""] })
            for key in byTrack.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                for group in merge(byTrack[key]!) { incidents.append(trackIncident(group, byUid, context)) }
            }
            incidents.sort { a, b in
                a.startTs != b.startTs ? a.startTs < b.startTs : (a.uid, a.track ?? "") < (b.uid, b.track ?? "")
            }
            return incidents
        }
    }

    /// What the cause rules look at beyond a group's own signals.
    struct CauseContext {
        let analysis: MeetingAnalysis
        /// Per participant: warm reports above their own baseline (below the fixed lines).
        var rises: [String: [BaselineRise]] = [:]
        /// Per participant: their warm reports `(ts, loss, rtt)`, for a publisher's figures.
        var reports: [String: WarmFigures] = [:]
        var networkChanges: [String: [(ts: Int64, words: String)]] = [:]
        /// What each imported connection received (`MeshLoss`); nil
        /// without stats dumps.
        var mesh: MeshLoss?

        /// The one sender-side stall rule, over the meeting's subscriptions.
        let sharing: SharedStalls
        /// Viewers' loss that was a sender's outage counted late (`LateLoss`).
        var late: LateLoss?

        init(analysis: MeetingAnalysis, sharing: SharedStalls) {
            self.analysis = analysis
            self.sharing = sharing
        }

        /// The largest loss and RTT of `uid`'s warm reports over the window.
        func figures(_ uid: String, _ from: Int64, _ to: Int64) -> (loss: Double, rtt: Double)? {
            guard let warm = reports[uid] else { return nil }
            let inside = warm.filter { $0.ts >= from && $0.ts <= to }
            guard !inside.isEmpty else { return nil }
            return (inside.map(\.loss).max()!, inside.map(\.rtt).max()!)
        }
    }

    /// The stall signals: shared ones (`SharedStalls`) clustered as the
    /// track's, the rest as their subscriber's.
    static func stallSignals(_ subscriptions: [Subscription], _ sharing: SharedStalls) -> [IncidentSignal] {
        struct Key: Hashable, Comparable {
            var publisher: String, track: String
            static func < (a: Key, b: Key) -> Bool { (a.publisher, a.track) < (b.publisher, b.track) }
        }
        var out: [IncidentSignal] = []
        // Shared stalls as (subscription, stall) positions until clustered:
        // a 20,000-viewer webinar's 60,000 shared stalls were 29 MB as signals.
        var sharedByTrack: [Key: [(subscription: Int32, stall: Int32)]] = [:]
        for (k, s) in subscriptions.enumerated() {
            for (i, x) in s.stalls.enumerated() {
                if sharing.isShared(x, of: s) {
                    sharedByTrack[Key(publisher: s.publisher, track: s.track), default: []].append((Int32(k), Int32(i)))
                } else {
                    out.append(IncidentSignal.stall(s, x))
                }
            }
        }
        for key in sharedByTrack.keys.sorted() {
            func stall(_ p: (subscription: Int32, stall: Int32)) -> (subscriber: String, stall: Stall) {
                let s = subscriptions[Int(p.subscription)]
                return (s.subscriber, s.stalls[Int(p.stall)])
            }
            let stalls = sharedByTrack[key]!.sorted { p, q in
                let (u, a) = stall(p), (v, b) = stall(q)
                if a.start != b.start { return a.start < b.start }
                if a.end != b.end { return a.end < b.end }
                return u < v
            }
            var subscribers: Set<String> = [], count = 0, stalledMs: Int64 = 0
            var clusterStart = Int64.min, clusterEnd = Int64.min
            func flush() {
                defer { subscribers = []; count = 0; stalledMs = 0; clusterEnd = .min }
                guard count > 0 else { return }
                out.append(IncidentSignal(kind: .stall, uid: key.publisher, start: clusterStart, end: clusterEnd, track: key.track,
                                          publisher: key.publisher, subscribers: subscribers.sorted(),
                                          stallCount: count, stalledMs: stalledMs, shared: true))
            }
            for p in stalls {
                let (subscriber, x) = stall(p)
                if count > 0, x.start >= clusterEnd + alignmentMs { flush() }
                if count == 0 { clusterStart = x.start }
                subscribers.insert(subscriber)
                count += 1
                stalledMs += x.durationMs
                clusterEnd = max(clusterEnd, x.end)
            }
            flush()
        }
        return out
    }

    /// One participant's signals in groups by the merge rule.
    static func merge(_ signals: [IncidentSignal]) -> [[IncidentSignal]] {
        // Times first: strings are compared only on a tie (rare), since a
        // busy participant has thousands of signals.
        let sorted = signals.sorted { a, b in
            if a.start != b.start { return a.start < b.start }
            if a.end != b.end { return a.end < b.end }
            if a.kind != b.kind { return a.kind < b.kind }
            return (a.track ?? "", a.publisher ?? "") < (b.track ?? "", b.publisher ?? "")
        }
        var groups: [[IncidentSignal]] = []
        var end = Int64.min
        for s in sorted {
            if groups.isEmpty || s.start > end + mergeGapMs {
                groups.append([s])
                end = s.end
            } else {
                groups[groups.count - 1].append(s)
                end = max(end, s.end)
            }
        }
        return groups
    }

    /// One merged group as an incident: its window, kinds, evidence and cause.
    static func incident(_ uid: String, _ group: [IncidentSignal], _ byUid: SignalsByUid,
                         _ context: CauseContext) -> Incident {
        var e = IncidentEvidence()
        var tracks: Set<String> = [], subscribers: Set<String> = []
        for s in group {
            switch s.kind {
            case .stall:
                e.stallCount += s.stallCount
                e.stalledMs += s.stalledMs
                if let t = s.track { tracks.insert(t) }
                subscribers.formUnion(s.subscribers)
            case .lowTier:
                e.lowTierMs += s.end - s.start
                e.lowestTier = min(e.lowestTier ?? s.lowestTier!, s.lowestTier!)
            case .loss: e.maxLossPct = max(e.maxLossPct ?? 0, s.peak ?? 0)
            case .rtt: e.maxRttMs = max(e.maxRttMs ?? 0, s.peak ?? 0)
            case .disconnect:
                if e.disconnects == 0 { e.disconnectError = s.error; e.awayMs = s.awayMs }
                e.awayEach.append(s.awayMs)
                e.disconnects += 1
                if s.error != nil { e.abnormalDisconnects += 1 }
            case .jitter: break  // rises never join a group (`CauseContext.rises`)
            }
        }
        e.tracks = tracks.sorted()
        e.subscribers = subscribers.sorted()
        let start = group.map(\.start).min()!, end = group.map(\.end).max()!
        // A network change just before (or during) the trouble is evidence either way.
        let change = (context.networkChanges[uid] ?? []).last { $0.ts <= end && $0.ts >= start - networkChangeMs }
        e.networkChange = change?.words
        let kinds = Set(group.map(\.kind)).sorted()
        let stalls = group.filter { $0.kind == .stall }
        let cause: IncidentCause
        if kinds.contains(.disconnect) {
            cause = .disconnect
        } else if !kinds.contains(.loss), let gap = strainedDevice(group) {
            // RTT that rose only while the client's own reports fell
            // behind: its device did not keep up, and answered late.
            cause = .ownDevice
            e.strainedGapMs = gap
        } else if let figure: ReceivedLoss.Figure = kinds.contains(.loss) ? .loss : kinds.contains(.rtt) ? .rtt : nil,
                  let mesh = context.mesh?.sender(of: uid, start, end, stalledPublishers: Set(stalls.compactMap(\.publisher)), figure) {
            // A mesh viewer's loss that only its connection from one sender
            // had, as the sender's other viewers did: that sender's uplink.
            // The same for a round trip (without loss) that only its
            // connection with one peer had, as the peer's other links did:
            // the peer's network, or its device answering late.
            cause = .publisher
            e.publishers = [mesh.sender]
            e.publisherKinds = publisherKinds(mesh.sender, start, end, byUid)
            e.cleanConnections = mesh.cleanConnections
            if figure == .loss {
                e.alsoLossy = mesh.also
                e.alsoLossyMaxPct = mesh.alsoPeak
            } else {
                e.alsoSlow = mesh.also
                e.alsoSlowMaxRttMs = mesh.alsoPeak
            }
            publisherFigures(&e, start, end, context)
        } else if kinds.contains(where: { $0 == .loss || $0 == .rtt || $0 == .lowTier }) {
            cause = .ownNetwork
        } else if let rise = baselineRise(uid, stalls, context) {
            cause = .ownNetwork
            e.maxLossPct = rise.loss
            e.maxRttMs = rise.rtt
            e.baselineLossPct = rise.baselineLoss
            e.baselineRttMs = rise.baselineRtt
            e.maxJitterMs = rise.jitter
            e.baselineJitterMs = rise.baselineJitter
        } else if change != nil && !stalls.isEmpty {
            cause = .ownNetwork
        } else if let others = othersKeptPlaying(uid, stalls, context) {
            // Not the sender: it sent the same frames to viewers who played
            // them. With a clean network here, this viewer's device; on the
            // CDN (no feed to tell), its link to the CDN.
            cause = context.analysis.isCDN ? .ownNetwork : .ownDevice
            e.othersPlaying = others
        } else if let blame = publisherBlame(stalls, byUid) {
            cause = .publisher
            e.publishers = blame.publishers
            e.publisherKinds = blame.kinds
            publisherFigures(&e, start, end, context)
        } else if !context.analysis.isCDN, let burst = deviceBurst(stalls) {
            // Both rules need a network known to be clean: not on CDN (no feed).
            cause = .ownDevice
            e.burstTracks = burst
        } else if !context.analysis.isCDN, let playing = singleTrackFreeze(uid, stalls, context) {
            cause = .publisher
            e.publishers = Array(Set(stalls.compactMap(\.publisher))).sorted()
            e.otherTracksPlaying = playing
            publisherFigures(&e, start, end, context)
        } else {
            cause = .unknown
        }
        return Incident(startTs: start, endTs: end, uid: uid, track: nil, kinds: kinds, cause: cause, evidence: e)
    }

    /// When the group has RTT runs and every one was measured while the
    /// client's reports came late (`IncidentSignal.strainedGap`): the
    /// longest gap between them, ms.
    static func strainedDevice(_ group: [IncidentSignal]) -> Int64? {
        let rtt = group.filter { $0.kind == .rtt }
        guard !rtt.isEmpty, rtt.allSatisfy({ $0.strainedGapMs != nil }) else { return nil }
        return rtt.compactMap(\.strainedGapMs).max()
    }

    /// A `network_change` this long before an incident counts as its evidence.
    public static let networkChangeMs: Int64 = 10_000
    /// Stalls on this many tracks starting this close: the viewer's device.
    public static let deviceBurstTracks = 3

    /// A rise of the participant's RTT, loss or jitter against their own
    /// baseline within 2 s of one of the incident's stalls (the relative
    /// line of `IncidentSignal.spikes`). Of a stall, not of the window: two
    /// stalls 10 s apart merge into one incident, and a rise between them,
    /// more than 2 s from each, explains neither.
    static func baselineRise(_ uid: String, _ stalls: [IncidentSignal], _ context: CauseContext)
        -> (loss: Double?, rtt: Double?, jitter: Double?, baselineLoss: Double?, baselineRtt: Double?, baselineJitter: Double?)?
    {
        let near = (context.rises[uid] ?? []).filter { rise in
            stalls.contains { rise.start <= $0.end + alignmentMs && rise.end >= $0.start - alignmentMs }
        }
        guard !near.isEmpty else { return nil }
        let loss = near.filter { $0.kind == .loss }, rtt = near.filter { $0.kind == .rtt }, jitter = near.filter { $0.kind == .jitter }
        return (loss.map(\.peak).max(), rtt.map(\.peak).max(), jitter.map(\.peak).max(),
                loss.first?.baseline, rtt.first?.baseline, jitter.first?.baseline)
    }

    /// Stalls of `deviceBurstTracks` or more tracks that start within 2 s
    /// of each other: how many tracks, or nil.
    static func deviceBurst(_ stalls: [IncidentSignal]) -> Int? {
        let sorted = stalls.sorted { $0.start < $1.start }
        var best = 0
        for (i, s) in sorted.enumerated() {
            let tracks = Set(sorted[i...].prefix { $0.start <= s.start + alignmentMs }.compactMap(\.track))
            best = max(best, tracks.count)
        }
        return best >= deviceBurstTracks ? best : nil
    }

    /// Every stall of the group was played through by more of the track's
    /// other viewers (first frame before it, subscription past it, no stall
    /// within 2 s of it) than stalled with it: the fewest such viewers of
    /// any stall, or nil. A frozen camera or a sender's uplink stops the
    /// track for everyone; when most watchers played on, the frames were
    /// sent and this viewer's path lost them. A tie (two stall together
    /// while a third plays) is left to the later rules.
    ///
    /// Not on P2P: in a mesh the sender encodes and sends each viewer its
    /// own stream over its own path, so another viewer playing on does not
    /// show that this viewer's frames were sent. (A recorded mesh call with
    /// the sender's uplink capped froze one viewer's tile of it while the
    /// other's played: "own device" before.)
    static func othersKeptPlaying(_ uid: String, _ stalls: [IncidentSignal], _ context: CauseContext) -> Int? {
        guard !stalls.isEmpty, context.analysis.engine != "p2p" else { return nil }
        var fewest = Int.max
        for x in stalls {
            guard let track = x.track, let publisher = x.publisher else { return nil }
            let sharing = context.sharing
            let stalled = Set(sharing.others(overlapping: x.start, x.end, publisher: publisher, track: track, subscriber: uid))
            let watchers = sharing.watchers(publisher: publisher, track: track).filter { s in
                s.subscriber != uid && !stalled.contains(s.subscriber)
                    && s.firstFrameTs.map { $0 <= x.start } == true && s.endTs >= x.end
                    && !sharing.wasSilent(s.subscriber, x.start, x.end)
            }
            let n = Set(watchers.map(\.subscriber)).count
            guard n > stalled.count else { return nil }
            fewest = min(fewest, n)
        }
        return fewest
    }

    /// One track stalled, alone, while the viewer rendered others that did
    /// not: the number of those still playing, or nil.
    static func singleTrackFreeze(_ uid: String, _ stalls: [IncidentSignal], _ context: CauseContext) -> Int? {
        let tracks = Set(stalls.compactMap(\.track))
        guard tracks.count == 1, let first = stalls.map(\.start).min(), let last = stalls.map(\.end).max() else { return nil }
        let playing = context.analysis.subscriptions.filter { s in
            s.subscriber == uid && !tracks.contains(s.track) && (s.firstFrameTs ?? .max) <= first && s.endTs > last
                && !s.stalls.contains { $0.start < last + alignmentMs && $0.end > first - alignmentMs }
        }
        return playing.isEmpty ? nil : playing.count
    }

    /// The kinds of `publisher`'s own signals (stalls aside) within 2 s of `[start, end]`.
    static func publisherKinds(_ publisher: String, _ start: Int64, _ end: Int64, _ byUid: SignalsByUid) -> [IncidentKind] {
        Set(byUid[publisher].filter {
            $0.kind != .stall && $0.start <= end + alignmentMs && $0.end >= start - alignmentMs
        }.map(\.kind)).sorted()
    }

    /// The publisher(s)' own largest loss and RTT over the window.
    static func publisherFigures(_ e: inout IncidentEvidence, _ start: Int64, _ end: Int64, _ context: CauseContext) {
        for p in e.publishers {
            guard let f = context.figures(p, start - alignmentMs, end + alignmentMs) else { continue }
            e.publisherMaxLossPct = max(e.publisherMaxLossPct ?? 0, f.loss)
            e.publisherMaxRttMs = max(e.publisherMaxRttMs ?? 0, f.rtt)
        }
    }

    /// Shared stall clusters of one track, merged: the publisher's incident
    /// on that track, with the publisher's own signals near it as evidence.
    static func trackIncident(_ group: [IncidentSignal], _ byUid: SignalsByUid, _ context: CauseContext) -> Incident {
        var e = IncidentEvidence()
        e.stallCount = group.reduce(0) { $0 + $1.stallCount }
        e.stalledMs = group.reduce(0) { $0 + $1.stalledMs }
        e.subscribers = Array(Set(group.flatMap(\.subscribers))).sorted()
        let publisher = group[0].uid, track = group[0].track!
        e.tracks = [track]
        e.publishers = [publisher]
        let start = group.map(\.start).min()!, end = group.map(\.end).max()!
        e.publisherKinds = publisherKinds(publisher, start, end, byUid)
        publisherFigures(&e, start, end, context)
        e.networkChange = (context.networkChanges[publisher] ?? []).last { $0.ts <= end && $0.ts >= start - networkChangeMs }?.words
        if let l = context.late?.evidence(publisher: publisher, track: track, start: start, end: end) {
            e.lateLossPct = l.peak
            e.lateLossViewers = l.viewers
        }
        return Incident(startTs: start, endTs: end, uid: publisher, track: track, kinds: [.stall], cause: .publisher, evidence: e)
    }

    /// When every stall lies within `alignmentMs` of a loss, RTT, low-tier
    /// or disconnect signal of its publisher: those publishers and kinds.
    static func publisherBlame(_ stalls: [IncidentSignal], _ byUid: SignalsByUid)
        -> (publishers: [String], kinds: [IncidentKind])?
    {
        guard !stalls.isEmpty else { return nil }
        var publishers: Set<String> = [], kinds: Set<IncidentKind> = []
        for s in stalls {
            guard let p = s.publisher, p != s.uid else { return nil }
            let near = byUid[p].filter {
                $0.kind != .stall && $0.start <= s.end + alignmentMs && $0.end >= s.start - alignmentMs
            }
            guard !near.isEmpty else { return nil }
            publishers.insert(p)
            kinds.formUnion(near.map(\.kind))
        }
        return (publishers.sorted(), kinds.sorted())
    }
}

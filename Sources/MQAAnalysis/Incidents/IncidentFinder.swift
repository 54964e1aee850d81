import MQABase
import MQAModel

/// Finds a meeting's incidents (Docs/incidents.md has the rule in words).
///
/// 1. **Signals** per participant: each stall they saw, each run of their
///    recomputed tier at poor/bad, each run of warm reports with loss > 5 %
///    or RTT > 400 ms (the issue thresholds), each disconnect with an error
///    or followed by a reconnect (to the reconnect).
/// 2. **Publisher-side stalls.** The stalls of one published track are
///    clustered: sorted by start, a stall joins the cluster when it starts
///    before the cluster's end + 2 s (the track report's tolerance). A
///    cluster is *shared* when at least two subscribers stalled in it and
///    every subscriber rendering the track at the cluster's start did. A
///    shared cluster is taken from its subscribers' signals: it belongs to
///    the track.
/// 3. **Merging.** Per participant, and per track for shared clusters,
///    signals sorted by start join the open incident when they start at
///    most `mergeGapMs` (10 s) after its end.
/// 4. **Cause**, the first that applies: `publisher` for a track's
///    incident; `disconnect` (a disconnect is in it); `own_network` (the
///    participant's own loss, RTT or low tier is in it); `publisher` (every
///    stall in it lies within 2 s of a loss, RTT, low-tier or disconnect
///    signal of that stall's publisher: the sender's uplink degraded);
///    else `unknown`. A track's incident names the publisher's signals
///    within 2 s of it as evidence.
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
        var signals: [IncidentSignal] = []
        for client in log.clients {
            signals += IncidentSignal.disconnects(client)
            guard !analysis.isCDN else { continue }
            signals += IncidentSignal.lowTier(client.uid, analysis.timelines[client.uid])
            signals += IncidentSignal.spikes(client, config: analysis.config)
        }
        let stalls = stallSignals(analysis.subscriptions)
        signals += stalls.filter { !$0.shared }
        let byUid = Dictionary(grouping: signals, by: \.uid)
        var incidents: [Incident] = []
        for uid in byUid.keys.sorted() {
            for group in merge(byUid[uid]!) { incidents.append(incident(uid, group, byUid)) }
        }
        let byTrack = Dictionary(grouping: stalls.filter(\.shared), by: { [$0.uid, $0.track ?? ""] })
        for key in byTrack.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            for group in merge(byTrack[key]!) { incidents.append(trackIncident(group, byUid)) }
        }
        return incidents.sorted { a, b in
            a.startTs != b.startTs ? a.startTs < b.startTs : (a.uid, a.track ?? "") < (b.uid, b.track ?? "")
        }
    }

    /// The stall signals: shared clusters as the publisher's, the rest as
    /// their subscriber's.
    static func stallSignals(_ subscriptions: [Subscription]) -> [IncidentSignal] {
        struct Key: Hashable, Comparable {
            var publisher: String, track: String
            static func < (a: Key, b: Key) -> Bool { (a.publisher, a.track) < (b.publisher, b.track) }
        }
        let byTrack = Dictionary(grouping: subscriptions, by: { Key(publisher: $0.publisher, track: $0.track) })
        var out: [IncidentSignal] = []
        for key in byTrack.keys.sorted() {
            let subs = byTrack[key]!
            let stalls = subs.flatMap { s in s.stalls.map { IncidentSignal.stall(s, $0) } }.sorted { (a: IncidentSignal, b: IncidentSignal) -> Bool in
                if a.start != b.start { return a.start < b.start }
                if a.end != b.end { return a.end < b.end }
                return a.uid < b.uid
            }
            var cluster: [IncidentSignal] = []
            var clusterEnd = Int64.min
            func flush() {
                defer { cluster = []; clusterEnd = .min }
                guard let first = cluster.first else { return }
                let start = first.start, end = clusterEnd
                let stalled = Set(cluster.map(\.uid))
                // Every subscriber watching at `start` stalled; asked only of
                // clusters of two or more, and stopping at the first watcher
                // who did not (a track may have 100,000 subscribers).
                guard stalled.count >= 2, !subs.contains(where: { s in
                    s.firstFrameTs.map { $0 <= start } == true && s.endTs > start && !stalled.contains(s.subscriber)
                }) else { out += cluster; return }
                out.append(IncidentSignal(kind: .stall, uid: key.publisher, start: start, end: end, track: key.track,
                                          publisher: key.publisher, subscribers: stalled.sorted(), stallCount: cluster.count,
                                          stalledMs: cluster.reduce(0) { $0 + $1.stalledMs }, shared: true))
            }
            for s in stalls {
                if !cluster.isEmpty, s.start >= clusterEnd + alignmentMs { flush() }
                cluster.append(s)
                clusterEnd = max(clusterEnd, s.end)
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
    static func incident(_ uid: String, _ group: [IncidentSignal], _ byUid: [String: [IncidentSignal]]) -> Incident {
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
                e.disconnects += 1
            }
        }
        e.tracks = tracks.sorted()
        e.subscribers = subscribers.sorted()
        let kinds = Set(group.map(\.kind)).sorted()
        let cause: IncidentCause
        if kinds.contains(.disconnect) {
            cause = .disconnect
        } else if kinds.contains(where: { $0 == .loss || $0 == .rtt || $0 == .lowTier }) {
            cause = .ownNetwork
        } else if let blame = publisherBlame(group.filter { $0.kind == .stall }, byUid) {
            cause = .publisher
            e.publishers = blame.publishers
            e.publisherKinds = blame.kinds
        } else {
            cause = .unknown
        }
        return Incident(startTs: group.map(\.start).min()!, endTs: group.map(\.end).max()!, uid: uid,
                        track: nil, kinds: kinds, cause: cause, evidence: e)
    }

    /// Shared stall clusters of one track, merged: the publisher's incident
    /// on that track, with the publisher's own signals near it as evidence.
    static func trackIncident(_ group: [IncidentSignal], _ byUid: [String: [IncidentSignal]]) -> Incident {
        var e = IncidentEvidence()
        e.stallCount = group.reduce(0) { $0 + $1.stallCount }
        e.stalledMs = group.reduce(0) { $0 + $1.stalledMs }
        e.subscribers = Array(Set(group.flatMap(\.subscribers))).sorted()
        let publisher = group[0].uid, track = group[0].track!
        e.tracks = [track]
        e.publishers = [publisher]
        let start = group.map(\.start).min()!, end = group.map(\.end).max()!
        e.publisherKinds = Set((byUid[publisher] ?? []).filter {
            $0.kind != .stall && $0.start <= end + alignmentMs && $0.end >= start - alignmentMs
        }.map(\.kind)).sorted()
        return Incident(startTs: start, endTs: end, uid: publisher, track: track, kinds: [.stall], cause: .publisher, evidence: e)
    }

    /// When every stall lies within `alignmentMs` of a loss, RTT, low-tier
    /// or disconnect signal of its publisher: those publishers and kinds.
    static func publisherBlame(_ stalls: [IncidentSignal], _ byUid: [String: [IncidentSignal]])
        -> (publishers: [String], kinds: [IncidentKind])?
    {
        guard !stalls.isEmpty else { return nil }
        var publishers: Set<String> = [], kinds: Set<IncidentKind> = []
        for s in stalls {
            guard let p = s.publisher, p != s.uid else { return nil }
            let near = (byUid[p] ?? []).filter {
                $0.kind != .stall && $0.start <= s.end + alignmentMs && $0.end >= s.start - alignmentMs
            }
            guard !near.isEmpty else { return nil }
            publishers.insert(p)
            kinds.formUnion(near.map(\.kind))
        }
        return (publishers.sorted(), kinds.sorted())
    }
}

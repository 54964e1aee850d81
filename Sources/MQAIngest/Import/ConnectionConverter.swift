import MQABase
import MQAModel
import MQAStore

/// One event a connection's samples made, waiting for the participant's
/// assembly (`ParticipantAssembler`): its time, its name, and where its
/// payload (the text after the envelope, `}\n` included) lies in the
/// converter's `out`. Payloads are contiguous in creation order, so a
/// piece's text runs to the next piece's start.
struct ImportedPiece {
    var ts: Int64
    /// Where the payload starts in the converter's `out`.
    var start: Int
    /// A report's media bytes (sent + received) in `Fixed` units; 0 for a track event.
    var media: Int128
    /// A report's interval start; `Int64.min` on a connection's first sample and for track events.
    var fromTs: Int64
    var event: Event
    /// A subscription taken back: it never got past sampling granularity
    /// (packets in one interval only, no frame), so it is not a fact.
    var dropped = false
    /// A track event's track: its index in the converter's `trackNames`
    /// (-1 for a report); with a status, whether it said `timedOut`.
    var track: Int32 = -1
    var timedOut = false

    /// The events a converter writes: a byte, not a `StaticString`, since a
    /// dump has hundreds of thousands of pieces (48 bytes each, not 80).
    enum Event: UInt8 {
        case qualityReport, streamSubscribe, streamUnsubscribe, receiveStreamStatus

        var name: StaticString {
            switch self {
            case .qualityReport: "quality_report"
            case .streamSubscribe: "stream_subscribe"
            case .streamUnsubscribe: "stream_unsubscribe"
            case .receiveStreamStatus: "receive_stream_status"
            }
        }
    }

    enum Kind: Equatable {
        /// A quality report over `(from, ts]` that moved `media` bytes
        /// (sent + received); `from` is nil on a connection's first sample.
        case report(media: Int128, from: Int64?)
        case track
    }

    init(ts: Int64, event: Event, start: Int, kind: Kind) {
        self.ts = ts
        self.event = event
        self.start = start
        switch kind {
        case .report(let media, let from):
            self.media = media
            fromTs = from ?? .min
        case .track:
            media = 0
            fromTs = .min
        }
    }

    var kind: Kind { event == .qualityReport ? .report(media: media, from: fromTs == .min ? nil : fromTs) : .track }
}

/// Turns one peer connection's samples, in time order, into events
/// (Docs/import.md, "What becomes what"): a quality report per sample that
/// carried RTP, and the video tracks' subscriptions, first frames,
/// freezes and pauses. Fed one sample at a time, so a long connection
/// costs only its few counters and its output, never its samples.
/// Joining, leaving and the connection's fate are the participant's
/// (`ParticipantAssembler`), which sees all of a dump's connections.
struct ConnectionConverter {
    let connection: String
    /// The publisher of a remote track where the dump names one (rtcstats
    /// `ontrack`: the track's stream id), keyed by track identifier.
    var publishers: [String: String] = [:]
    private(set) var out: [UInt8] = []
    private(set) var pieces: [ImportedPiece] = []
    private(set) var samples = 0
    private(set) var hasStandardStats = false
    private(set) var hasLegacyStats = false
    /// Some inbound or outbound RTP report existed (the connection was
    /// set up for media), and some sample counted a packet or byte in one.
    private(set) var hasRTPStreams = false
    private(set) var carriedMedia = false
    /// Bytes sent + received over the whole connection.
    private(set) var mediaBytes: Int128 = 0
    private(set) var firstTs: Int64 = 0
    /// The first sample whose counters show media, when an earlier sample
    /// showed none: the samples saw the media begin (`LocaleLogTime`).
    private(set) var mediaBeganAt: Int64?
    /// The first sample came within seconds of the connection coming up (or
    /// before): its candidate pairs had received at most a few STUN
    /// responses, which come about one a second once connected
    /// (`LocaleLogTime`: a page opened a quarter hour into a lobby looks
    /// like one opened at its start otherwise).
    private(set) var firstSampleFresh = false
    private(set) var lastTs: Int64 = 0
    /// Inbound streams that ever received a packet, per kind, and whether
    /// anything was sent: the engine's evidence without a constraints line.
    private(set) var receivedAudioStreams = Set<String>()
    private(set) var receivedVideoStreams = Set<String>()
    private(set) var sentMedia = false
    /// Context from standard stats (the summary's, never the figures).
    private(set) var paths: [String] = []
    private(set) var limitedMs: [String: Int64] = [:]
    private var concealed: (samples: Fixed, received: Fixed) = (.zero, .zero)
    private var concealmentCounters: [String: (samples: Fixed, received: Fixed)] = [:]
    private(set) var sawConcealment = false
    /// The path is read again only when the pair's local candidate changes.
    private var lastLocalCandidate: String?
    private var previousTs: Int64?
    private var previousStatsTime: Fixed?
    /// Last known counters of each local inbound-rtp report, kept while the
    /// report is gone so that a returning report counts from them.
    private var counters: [String: (lost: Fixed, received: Fixed, bytes: Fixed)] = [:]
    private var sent: [String: (packets: Fixed, bytes: Fixed)] = [:]
    /// When the connection came back up after a drop, as far as its state
    /// log is known when a sample is fed (`ConnectionMeta.returns`): video
    /// found back in an interval holding a return came after it.
    var returns: [Int64] = []
    /// The sample being fed moved no inbound RTP at all, and its
    /// candidate pair received nothing.
    private var receivedNothing = false
    private var lastPairBytes: Fixed?
    /// When the connection's transport said its DTLS was closed: the far
    /// end hung up (its close alert), whatever ICE logs after.
    private(set) var farEndClosedAt: Int64?
    /// Pauses that came as every inbound stream stopped at once: a sender
    /// muting, or the network going dark; the state log tells which once
    /// it is all known (`finish`).
    private var darkPauses: [(piece: Int, track: Int, showing: Bool)] = []
    /// Each remote-inbound report's own `timestamp` at the last sample:
    /// one that has not moved since holds no new word from the far end.
    private var remoteStamps: [String: Fixed] = [:]
    /// The video tracks in the order first seen, and where each key is:
    /// an array walked per sample, not a dictionary of copies.
    private var tracks: [Track] = []
    private var trackIndex: [String: Int] = [:]
    /// Per track, the index in the current sample's reports (-1: absent);
    /// kept between samples so that no sample allocates one.
    private var presentScratch: [Int] = []
    /// Per track, whether its packets grew in this sample (when present).
    private var grewScratch: [Bool] = []

    struct Track {
        var key: String
        var publisher: String
        /// The SSRC it first came on, as text: where the description the
        /// connection received names the sender's own track.
        var ssrc: String?
        var subscribed = false
        /// The subscribe piece, while the subscription may still be taken back.
        var pending: Int?
        var subscribeTs: Int64 = 0
        var subscribeSample = 0
        /// The time of the sample the subscription began in.
        var subscribeSampleTs: Int64 = 0
        /// The subscription follows a pause of a track that had shown frames.
        var afterPause = false
        /// The subscription's piece, kept to move it once its first frame
        /// tells more.
        var subscribePiece = -1
        /// When its last stall ended (freeze counters can date a freeze
        /// back into the one before).
        var lastStallEnd: Int64 = .min
        /// Its `packetsLost` at the last sample it was in.
        var lastLost: Fixed?
        /// The dark pause this subscription came back from, and the
        /// sample it came back in: the loss that tells a network from a
        /// pause may be counted a sample late.
        var backFromDark: (pause: Int, sample: Int)?
        var packetIntervals = 0
        var shownFrame = false
        var firstFrameTs: Int64 = 0
        var stalled = false
        var samplesWithoutFrame = 0
        var lastFrames: Fixed?
        var lastPackets: Fixed?
        var lastBytes: Fixed?
        var lastFreezes: Fixed?
        var lastFreezesDuration: Fixed?
        /// The inbound report that carried it last.
        var report = ""
    }

    init(connection: String) {
        self.connection = connection
    }

    /// Every video track seen, in the order first seen: what a piece's
    /// `track` indexes.
    var trackNames: [(publisher: String, track: String)] { tracks.map { ($0.publisher, $0.key) } }

    /// Each track's SSRC (`Track.ssrc`), aligned with `trackNames`.
    var trackSSRCs: [String?] { tracks.map(\.ssrc) }

    /// The tracks subscribed when the samples end: a connection that ends
    /// while the participant stays (another connection carries on) ends
    /// them itself.
    var openTracks: [(publisher: String, track: String)] {
        tracks.compactMap { t in t.subscribed ? (t.publisher, t.key) : nil }
    }

    /// Converts the next sample (its time must not be before the last one's).
    mutating func feed(_ sample: StatsSample) {
        let ts = sample.ts
        if samples == 0 {
            firstTs = ts
            // No pair yet: not even checking. Pairs without the counter
            // tell nothing, and nothing unsure is placed.
            var responses: Fixed? = nil
            var pairs = false
            for (_, r) in sample.reports where r.category == .candidatePair {
                pairs = true
                if let n = r.number(.responsesReceived), n > (responses ?? Fixed(integer: -1)) { responses = n }
            }
            firstSampleFresh = !pairs || responses.map { !($0 > Fixed(integer: 10)) } ?? false
        }
        samples += 1
        let carriedBefore = carriedMedia
        defer { if !carriedBefore && carriedMedia && samples > 1 && mediaBeganAt == nil { mediaBeganAt = ts } }
        lastTs = ts
        var index: [String: Int]? = nil
        func report(_ id: String) -> StatsReport? {
            if index == nil {
                var map: [String: Int] = [:]
                for (i, r) in sample.reports.enumerated() where map[r.id] == nil { map[r.id] = i }
                index = map
            }
            return index![id].map { sample.reports[$0].report }
        }

        // Counters, loss, bitrate, jitter over the local inbound-rtp reports;
        // what was sent over the outbound ones.
        var lost = Fixed.zero
        var received = Fixed.zero
        var bytes = Fixed.zero
        var jitter: Int64? = nil
        var sentPackets = Fixed.zero
        var sentBytes = Fixed.zero
        var packetsSentKnown = false
        for (id, r) in sample.reports {
            switch r.category {
            case .inbound, .remoteInbound, .candidatePair: hasStandardStats = true
            case .legacy: hasLegacyStats = true
            default: break
            }
            if r.isLocalOutbound {
                hasRTPStreams = true
                let nowPackets = r.number(.packetsSent)
                let nowBytes = r.number(.bytesSent)
                if nowPackets != nil { packetsSentKnown = true }
                let last = sent[id]
                var base = last ?? (.zero, .zero)
                if let last, (nowPackets.map { $0 < last.packets } ?? false) || (nowBytes.map { $0 < last.bytes } ?? false) {
                    base = (.zero, .zero)
                }
                let current = (packets: nowPackets ?? base.packets, bytes: nowBytes ?? base.bytes)
                sentPackets = sentPackets + (current.packets - base.packets)
                sentBytes = sentBytes + (current.bytes - base.bytes)
                sent[id] = current
                if current.packets.isPositive || current.bytes.isPositive { carriedMedia = true; sentMedia = true }
                continue
            }
            guard r.isLocalInbound else { continue }
            hasRTPStreams = true
            let nowLost = r.number(.packetsLost)
            let nowReceived = r.number(.packetsReceived)
            let nowBytes = r.number(.bytesReceived)
            let last = counters[id]
            var base = last ?? (.zero, .zero, .zero)
            if let last, (nowReceived.map { $0 < last.received } ?? false) || (nowBytes.map { $0 < last.bytes } ?? false) {
                base = (.zero, .zero, .zero)  // the report restarted: count from zero
            }
            let current = (lost: nowLost ?? base.lost, received: nowReceived ?? base.received, bytes: nowBytes ?? base.bytes)
            let dReceived = current.received - base.received
            lost = lost + (current.lost - base.lost)
            received = received + dReceived
            bytes = bytes + (current.bytes - base.bytes)
            counters[id] = current
            if current.received.isPositive || current.bytes.isPositive {
                carriedMedia = true
                if r.isKind("audio") { receivedAudioStreams.insert(id) } else if r.isKind("video") { receivedVideoStreams.insert(id) }
            }
            if dReceived.isPositive && r.isKind("audio"), let j = r.number(.jitter) {
                jitter = max(jitter ?? 0, j.millisecondsHalfUp)
            }
        }
        var interval: Int128 = 0
        if let previous = previousStatsTime { interval = sample.statsTime.raw &-? previous.raw }
        previousStatsTime = sample.statsTime
        /// kbps = bytes·8 / ms; both in 10⁻¹⁸ units, which cancel.
        func kbps(_ b: Fixed) -> Int128 {
            guard interval > 0 else { return 0 }
            return Fixed.floorDiv((16 &*? max(0, b.raw)) &+? interval, 2 &*? interval)
        }
        let media = max(0, bytes.raw) &+? max(0, sentBytes.raw)
        mediaBytes = mediaBytes &+? media
        let receivedAny = (received.raw &+? lost.raw) != 0
        // Dark: no RTP, and the pair in use heard nothing either (no RTCP,
        // no ICE answer). A peer that muted everything still sends reports.
        var pairHeard = true
        if let pair = ConnectionConverter.selectedPair(sample), let bytes = pair.number(.bytesReceived) {
            pairHeard = lastPairBytes.map { bytes != $0 } ?? true  // another pair: other bytes
            lastPairBytes = bytes
        }
        receivedNothing = !receivedAny && !pairHeard
        if farEndClosedAt == nil,
           sample.reports.contains(where: { $0.report.category == .transport && $0.report.text(.dtlsState) == "closed" }) {
            farEndClosedAt = previousTs.map { $0 + (ts - $0) / 2 } ?? ts
        }
        let sentAny = packetsSentKnown ? sentPackets.isPositive : sentBytes.isPositive
        // No RTP either way: no report (no data is not perfect quality).
        // Nor when it only sent and no word came back from the far end
        // (no remote-inbound report with a loss in the sample, or none
        // new since the last): the mean loss of no reports is no figure,
        // and 0 % would be "perfect".
        // An rtcstats sample repeats the far end's last report until a new
        // one comes (webrtc-internals holds it only in the second it came).
        var heardBack = false
        for (id, r) in sample.reports where r.category == .remoteInbound {
            let stamp = r.number(.timestamp)
            if stamp == nil || remoteStamps[id] != stamp { heardBack = true }
            if let stamp { remoteStamps[id] = stamp }
        }
        let senderView = receivedAny || !heardBack ? nil : ConnectionConverter.senderSide(sample)
        if receivedAny || (sentAny && senderView?.loss != nil) {
            var lossHundredths: Int128 = 0
            var bitrate: Int128 = 0
            if receivedAny {
                let expected = received.raw &+? lost.raw
                if expected > 0 && lost.raw > 0 {
                    lossHundredths = min(10_000, Fixed.floorDiv((20_000 &*? lost.raw) &+? expected, 2 &*? expected))
                }
                bitrate = kbps(bytes)
            } else {
                // Only sending: the far end's view of this side's streams.
                lossHundredths = senderView?.loss ?? 0
                jitter = senderView?.jitter
                bitrate = kbps(sentBytes)
            }
            let rtt = ConnectionConverter.roundTrip(sample, report)
            begin(ts, .qualityReport, .report(media: media, from: previousTs))
            text(",\"loss\":")
            ConnectionConverter.appendHundredths(lossHundredths, to: &out)
            // Absurd counters can make numbers no 64-bit decimal holds exactly
            // (18 digits); the validator would reject the whole report, so
            // they are capped there (found by the rtcstats fuzz target).
            let cap: Int128 = 999_999_999_999_999_999
            text(",\"rtt\":\(min(Int128(rtt), cap)),\"jitter\":\(min(Int128(jitter ?? 0), cap)),\"bitrate\":\(min(bitrate, cap)),\"mos\":null}\n")
        }
        videoTracks(sample, report)
        noteContext(sample, report)
        previousTs = ts
    }

    /// The network path, outgoing video's limits and audio concealment.
    private mutating func noteContext(_ sample: StatsSample, _ report: (String) -> StatsReport?) {
        if let pair = ConnectionConverter.selectedPair(sample), let localID = pair.text(.localCandidateId),
            localID != lastLocalCandidate, let local = report(localID), let type = local.text(.candidateType)
        {
            lastLocalCandidate = localID
            var path = type + "/" + (local.text(.relayProtocol) ?? local.text(.protocol) ?? "?")
            if path.unicodeScalars.count > 40 { path = String(path.prefix(40)) }
            if paths.last != path && paths.count < 8 { paths.append(path) }
        }
        let interval = previousTs.map { sample.ts - $0 } ?? 0
        // Per interval once, whatever the number of simulcast layers: the
        // encoder's CPU limit first, then the network's.
        var limit: Int? = nil
        for (id, r) in sample.reports {
            if r.isLocalOutbound && r.isKind("video"), let reason = r.text(.qualityLimitationReason), reason != "none" {
                let rank = ConnectionContext.limitReasons.firstIndex(of: reason) ?? 2
                limit = min(limit ?? rank, rank)
            }
            // Audible concealment: samples made up while packets were
            // missing, not the silence played where nothing was sent (a
            // muted or idle sender, an SFU's unused audio slot). A stream
            // that never received a packet is all such silence: Google
            // Meet's two idle slots of three made a clean call "86 %".
            if r.isLocalInbound && r.isKind("audio"), (r.number(.packetsReceived) ?? .zero).isPositive,
               let all = r.number(.concealedSamples), let n = r.number(.totalSamplesReceived) {
                let silent = r.number(.silentConcealedSamples) ?? .zero
                let c = silent < all ? all - silent : .zero
                sawConcealment = true
                let last = concealmentCounters[id] ?? (.zero, .zero)
                // A restarted counter counts from zero, as the packet counters do.
                let base = (c < last.samples || n < last.received) ? (samples: Fixed.zero, received: Fixed.zero) : last
                concealed = (concealed.samples + (c - base.samples), concealed.received + (n - base.received))
                concealmentCounters[id] = (c, n)
            }
        }
        if let limit, interval > 0 { limitedMs[ConnectionContext.limitReasons[limit], default: 0] &+= interval }
    }

    /// Concealed over received audio samples, 0–1.
    var concealment: Double? {
        guard sawConcealment, concealed.received.isPositive else { return nil }
        return min(1, max(0, Double(concealed.samples.raw) / Double(concealed.received.raw)))
    }

    /// The candidate pair in use, by the rtt rule's order (named by a
    /// transport, else marked selected, else nominated and succeeded).
    static func selectedPair(_ sample: StatsSample) -> StatsReport? {
        let named = transportPairIDs(sample)
        for rule in PairRule.allCases {
            for (id, r) in sample.reports where r.category == .candidatePair && rule.matches(id, r, named: named) { return r }
        }
        return nil
    }

    /// The rtt rule's ways of telling the pair in use, in their order.
    enum PairRule: CaseIterable {
        case namedByTransport, selected, nominatedAndSucceeded

        func matches(_ id: String, _ r: StatsReport, named: [String]) -> Bool {
            switch self {
            case .namedByTransport: named.contains(id)
            case .selected: r.bool(.selected) == true
            case .nominatedAndSucceeded: r.bool(.nominated) == true && r.text(.state) == "succeeded"
            }
        }
    }

    /// The pairs the sample's transports name as selected.
    static func transportPairIDs(_ sample: StatsSample) -> [String] {
        var named: [String] = []
        for (_, r) in sample.reports where r.category == .transport {
            if let id = r.text(.selectedCandidatePairId) { named.append(id) }
        }
        return named
    }

    /// The video tracks of a sample: subscriptions follow the packets (a
    /// track that receives none is not being sent: a pause, or never sent),
    /// first frames the decoder, freezes the browser's freeze counters
    /// where it keeps them, else decoding that stops while packets arrive.
    private mutating func videoTracks(_ sample: StatsSample, _ report: (String) -> StatsReport?) {
        let ts = sample.ts
        let sampleIndex = samples - 1
        // The event inside (previous, ts] is known only to the interval:
        // its midpoint (rounded down) stands for it.
        let mid = previousTs.map { $0 + (ts - $0) / 2 } ?? ts
        // Subscriptions and first frames found in an interval in which the
        // connection came back: not before it did (a 6 s sampling gap over
        // a drop put a track's return 2 s before its connection's).
        let back = previousTs.flatMap { p in returns.last { $0 > p && $0 <= ts } }
        let arrived = max(mid, back ?? mid)
        for k in presentScratch.indices { presentScratch[k] = -1 }
        for (n, (id, r)) in sample.reports.enumerated() where r.isLocalInbound && r.isKind("video") {
            var key = r.text(.trackIdentifier)
            if key == nil, let ref = r.text(.trackId) { key = report(ref)?.text(.trackIdentifier) }
            // The ssrc's text only when it names the track or a new publisher.
            let track = key ?? ConnectionConverter.ssrcText(r[.ssrc]) ?? id
            let k: Int
            if let known = trackIndex[track] {
                k = known
            } else {
                let publisher = key.flatMap { publishers[$0] } ?? "remote-" + (ConnectionConverter.ssrcText(r[.ssrc]) ?? id)
                k = tracks.count
                tracks.append(Track(key: track, publisher: publisher, ssrc: ConnectionConverter.ssrcText(r[.ssrc])))
                trackIndex[track] = k
                presentScratch.append(-1)
            }
            if presentScratch[k] < 0 {
                presentScratch[k] = n
                tracks[k].report = id
            }
        }
        for k in tracks.indices where tracks[k].subscribed && presentScratch[k] < 0 {
            // Its report now carries another track (Chrome names a new track
            // on the same SSRC when the sender swaps it): one tile handed on
            // at the midpoint where the next begins, not two overlapping.
            let handedOn = sample.reports.contains { $0.id == tracks[k].report && $0.report.isLocalInbound }
            endSubscription(k, at: handedOn ? mid : ts)
        }
        // Packets first, for every track: a pause ends its subscription
        // among the sample's unsubscribes, before any track's subscribe or
        // status (webrtc-import.md: "the quality report first, then
        // unsubscribes, then per track its subscribe and status").
        while grewScratch.count < tracks.count { grewScratch.append(false) }
        for k in tracks.indices {
            guard presentScratch[k] >= 0 else { continue }
            let r = sample.reports[presentScratch[k]].report
            grewScratch[k] = ConnectionConverter.packetsGrew(&tracks[k], r)
            if tracks[k].subscribed && !grewScratch[k] {
                // Packets stopped: the sender muted or the SFU stopped
                // forwarding. A pause, not a freeze. Its decoder's counters
                // still move on.
                if let frames = r.number(.framesDecoded) { tracks[k].lastFrames = frames }
                if let freezes = r.number(.freezeCount) {
                    tracks[k].lastFreezes = freezes
                    tracks[k].lastFreezesDuration = r.number(.totalFreezesDuration)
                }
                let showing = tracks[k].shownFrame && !tracks[k].stalled
                if let piece = endSubscription(k, at: mid), receivedNothing {
                    darkPauses.append((piece, k, showing))
                }
                presentScratch[k] = -1
            }
        }
        for k in tracks.indices {
            guard presentScratch[k] >= 0 else { continue }
            let r = sample.reports[presentScratch[k]].report
            var t = tracks[k]
            let key = t.key
            let grew = grewScratch[k]
            var newFrame = false
            let frames = r.number(.framesDecoded)
            let hadFrames = t.lastFrames?.isPositive == true
            if let frames {
                // A counter that went backwards restarted: any frame is new.
                if let last = t.lastFrames, frames >= last { newFrame = frames > last } else { newFrame = frames.isPositive }
                t.lastFrames = frames
            }
            let freezes = r.number(.freezeCount)
            let freezesDuration = r.number(.totalFreezesDuration)
            var freezeGrew = false
            var freezeMs: Int64 = 0
            if let freezes {
                if let last = t.lastFreezes, freezes >= last {
                    freezeGrew = freezes > last
                    if freezeGrew, let d = freezesDuration, let lastD = t.lastFreezesDuration, d >= lastD {
                        freezeMs = (d - lastD).millisecondsHalfUp
                    }
                }
                t.lastFreezes = freezes
                t.lastFreezesDuration = freezesDuration
            }
            // The track is written back once, on every path out of this body
            // (the dictionary holds hundreds of thousands of these updates).
            // Lost by the dozen: a gap in the sequence numbers, not the
            // odd packet a lossy network drops after a real resume.
            let lost = r.number(.packetsLost)
            let lostGrew = lost.map { now in t.lastLost.map { now - $0 >= Fixed(raw: 10 * Fixed.one) } ?? false } ?? false
            if lost != nil { t.lastLost = lost }
            // Back after going dark with packets lost on the way (counted
            // in the sample they came back in, or the next): they were
            // sent, so nobody paused. The network dropped them for a while
            // too short for ICE to call a drop (3 s in a recorded call):
            // the video froze from the stop until it came back, and the
            // subscription never ended.
            if !t.subscribed, grew, lostGrew, let d = openDarkPause(of: k, through: ts), case let dark = darkPauses[d] {
                darkPauses.remove(at: d)
                pieces[dark.piece].dropped = true
                t.subscribed = true
                t.packetIntervals = 2
                if dark.showing {
                    status(pieces[dark.piece].ts, k, t.publisher, key, timedOut: true)
                    if newFrame {
                        // Frames came back in this interval, as a first
                        // frame would be placed.
                        status(arrived, k, t.publisher, key, timedOut: false)
                        t.lastStallEnd = arrived
                    } else {
                        t.stalled = true
                    }
                }
            } else if let back = t.backFromDark, back.sample == sampleIndex - 1, lostGrew, t.subscribed, t.subscribePiece >= 0,
                      let d = darkPauses.firstIndex(where: { $0.piece == back.pause })
            {
                let dark = darkPauses.remove(at: d)
                pieces[dark.piece].dropped = true
                pieces[t.subscribePiece].dropped = true
                t.pending = nil
                if dark.showing {
                    // The first frame of the dropped subscription ends it.
                    status(pieces[dark.piece].ts, k, t.publisher, key, timedOut: true)
                }
            }
            t.backFromDark = nil
            if !t.subscribed {
                guard grew else { tracks[k] = t; continue }  // never sent yet, or still paused
                t.subscribed = true
                t.pending = begin(arrived, .streamSubscribe, .track)
                pieces[t.pending!].track = Int32(k)
                trackFields(t.publisher, key)
                text(",\"kind\":\"camera\"}\n")
                t.subscribeTs = arrived
                t.subscribeSample = sampleIndex
                t.subscribeSampleTs = ts
                t.afterPause = hadFrames
                t.subscribePiece = t.pending!
                if let d = openDarkPause(of: k, through: ts) { t.backFromDark = (darkPauses[d].piece, sampleIndex) }
                t.packetIntervals = 1
                t.shownFrame = false
                t.stalled = false
                t.samplesWithoutFrame = 0
            } else {
                t.packetIntervals += 1
                if t.packetIntervals >= 2 { t.pending = nil }
            }
            var firstFrameNow = false
            if newFrame {
                t.samplesWithoutFrame = 0
                if !t.shownFrame {
                    t.shownFrame = true
                    firstFrameNow = true
                    t.stalled = false
                    t.pending = nil
                    // The first frame came in (previous, ts], the first
                    // packets in the subscription's sample: only the time
                    // between those two samples is a delay the samples
                    // prove, and only that is claimed (webrtc-import.md:
                    // never slow to start from sampling granularity alone):
                    // the subscription moves to the end of its interval,
                    // the frame to the start of its own. Within one
                    // interval of the first packets, no delay is claimed.
                    var at = t.subscribeTs
                    if sampleIndex - t.subscribeSample > 1, let previous = previousTs, previous > t.subscribeSampleTs {
                        if t.subscribePiece >= 0 { pieces[t.subscribePiece].ts = t.subscribeSampleTs }
                        t.subscribeTs = t.subscribeSampleTs
                        at = previous
                    }
                    t.firstFrameTs = at
                    status(at, k, t.publisher, key, timedOut: false)
                } else if t.stalled {
                    t.stalled = false
                    t.lastStallEnd = ts
                    status(ts, k, t.publisher, key, timedOut: false)
                }
            } else if t.shownFrame && !t.stalled && freezes == nil {
                t.samplesWithoutFrame += 1
                if t.samplesWithoutFrame >= 2 {
                    t.stalled = true
                    status(ts, k, t.publisher, key, timedOut: true)
                }
            }
            if freezeGrew && t.shownFrame && !(firstFrameNow && t.afterPause) {
                // Browsers count a freeze once frames resume: it ended by
                // this sample and lasted the duration's growth (never
                // before the first frame: nothing was shown to freeze).
                // The freeze the first frame after a pause ends is that
                // pause (Chrome counts the gap of a stopped stream as one
                // freeze when it resumes): no media came, so no stall.
                let lasted = freezeMs > 0 ? freezeMs : (ts - (previousTs ?? ts)) / 2
                // Several freezes in one interval are one stall of their
                // summed duration; dated back, it may reach into the stall
                // before, which it then follows (overlapping, it was lost
                // as a repeat of a stall already open).
                let start = max(t.firstFrameTs, ts - lasted, t.lastStallEnd)
                if start < ts {
                    status(start, k, t.publisher, key, timedOut: true)
                    status(ts, k, t.publisher, key, timedOut: false)
                    t.lastStallEnd = ts
                }
            }
            tracks[k] = t
        }
    }

    /// Track `k`'s last dark pause, when still standing and the connection
    /// did not come back from a drop between it and `ts` (a drop and its
    /// return are `finish`'s to judge).
    private func openDarkPause(of k: Int, through ts: Int64) -> Int? {
        guard let d = darkPauses.lastIndex(where: { $0.track == k }), !pieces[darkPauses[d].piece].dropped else { return nil }
        let stop = pieces[darkPauses[d].piece].ts
        return returns.contains { $0 > stop && $0 <= ts } ? nil : d
    }

    /// Whether a present track's packets (and payload bytes) grew since the
    /// last sample; records the counters.
    private static func packetsGrew(_ t: inout Track, _ r: StatsReport) -> Bool {
        var grew = true  // without a packet counter, a present report is a flowing one
        if let packets = r.number(.packetsReceived) {
            if let last = t.lastPackets, packets >= last { grew = packets > last } else { grew = packets.isPositive }
            t.lastPackets = packets
        }
        // Packets without payload bytes are padding (an SFU probing the
        // bandwidth on a placeholder stream, as Jitsi's `mixedlabelvideo0`
        // gets): no video is being sent.
        if let bytes = r.number(.bytesReceived) {
            var bytesGrew: Bool
            if let last = t.lastBytes, bytes >= last { bytesGrew = bytes > last } else { bytesGrew = bytes.isPositive }
            t.lastBytes = bytes
            grew = grew && bytesGrew
        }
        return grew
    }

    /// Ends a track's subscription; one that never got past one interval
    /// of packets without a frame is taken back whole.
    /// Ends track `k`'s subscription; the unsubscribe's piece, or nil when
    /// the subscription was taken back whole.
    @discardableResult
    private mutating func endSubscription(_ k: Int, at ts: Int64) -> Int? {
        var t = tracks[k]
        t.subscribed = false
        if let p = t.pending, !t.shownFrame {
            pieces[p].dropped = true
            t.pending = nil
            tracks[k] = t
            return nil
        }
        t.pending = nil
        tracks[k] = t
        let i = begin(ts, .streamUnsubscribe, .track)
        pieces[i].track = Int32(k)
        trackFields(t.publisher, t.key)
        text("}\n")
        return i
    }

    /// Ends the samples, with the connection's whole state log: pauses
    /// that were the network going dark become stalls, and subscriptions
    /// that never got past sampling granularity are taken back.
    ///
    /// Every inbound stream stopping at once, then the connection dropping
    /// within `darkWindow` (ICE notices a dead path after about 5 s) and
    /// coming back, is the network, not the senders: the video that was
    /// showing froze from the stop to the drop, which ends the subscription
    /// (the unsubscribe moves there). Read as a pause, a 15 s outage of a
    /// recorded call was "nobody suffered". A connection that drops and
    /// never comes back may as well be a peer that left: a pause still.
    mutating func finish(states: [ConnectionMeta.StateChange] = []) {
        if !darkPauses.isEmpty {
            let drops = states.compactMap { !$0.byApp && ($0.state == "disconnected" || $0.state == "failed") ? $0.ts : nil }
            let backs = ConnectionMeta.returns(states)
            for dark in darkPauses {
                let stop = pieces[dark.piece].ts
                guard let drop = drops.first(where: { $0 > stop && $0 <= stop + ConnectionConverter.darkWindow }),
                      backs.contains(where: { $0 > drop }),
                      !pieces.contains(where: { $0.event == .streamSubscribe && $0.track == Int32(dark.track) && !$0.dropped && $0.ts > stop && $0.ts < drop })
                else { continue }
                pieces[dark.piece].ts = drop
                if dark.showing {
                    let t = tracks[dark.track]
                    status(stop, dark.track, t.publisher, t.key, timedOut: true)
                }
            }
        }
        finishTracks()
    }

    /// How soon after every stream stopped a drop makes it the network's.
    static let darkWindow: Int64 = 15_000

    /// Subscriptions that never got past sampling granularity are taken back.
    private mutating func finishTracks() {
        for k in tracks.indices {
            guard let p = tracks[k].pending, !tracks[k].shownFrame else { continue }
            pieces[p].dropped = true
            tracks[k].pending = nil
        }
    }

    /// The sender's side of an interval that only sent: loss from the
    /// remote-inbound reports' `fractionLost` (their mean, in hundredths of
    /// a percent, halves up, clamped; nil when no report has one), jitter
    /// the largest audio one.
    static func senderSide(_ sample: StatsSample) -> (loss: Int128?, jitter: Int64?) {
        var sum: Int128 = 0
        var count: Int128 = 0
        var jitter: Int64? = nil
        for (_, r) in sample.reports where r.category == .remoteInbound {
            if let f = r.number(.fractionLost) {
                sum = sum &+? f.raw
                count += 1
            }
            if r.isKind("audio"), let j = r.number(.jitter) { jitter = max(jitter ?? 0, j.millisecondsHalfUp) }
        }
        guard count > 0 else { return (nil, jitter) }
        // 100 · mean fraction, in hundredths: 10⁴ · sum / n, halves up.
        let h = Fixed.floorDiv((20_000 &*? sum) &+? (count &*? Fixed.one), 2 &*? count &*? Fixed.one)
        return (min(10_000, max(0, h)), jitter)
    }

    /// The rtt rule: the selected candidate pair's current RTT, else the
    /// mean remote-inbound RTT; ms, at least 1 when measured.
    static func roundTrip(_ sample: StatsSample, _ report: (String) -> StatsReport?) -> Int64 {
        let named = transportPairIDs(sample)
        for rule in PairRule.allCases {
            var best: (rtt: Fixed, traffic: Fixed)? = nil
            for (id, r) in sample.reports where r.category == .candidatePair && rule.matches(id, r, named: named) {
                guard let rtt = r.number(.currentRoundTripTime), rtt.isPositive else { continue }
                let traffic = (r.number(.bytesReceived) ?? .zero) + (r.number(.bytesSent) ?? .zero)
                if best == nil || traffic > best!.traffic { best = (rtt, traffic) }
            }
            if let best { return max(1, best.rtt.millisecondsHalfUp) }
        }
        var sum: Int128 = 0
        var count: Int128 = 0
        for (_, r) in sample.reports where r.category == .remoteInbound {
            guard let rtt = r.number(.roundTripTime), rtt.isPositive else { continue }
            sum = sum &+? rtt.raw
            count += 1
        }
        guard count > 0 else { return 0 }
        // mean·1000, halves up, on the exact sum.
        let ms = Fixed.floorDiv((2000 &*? sum) &+? (count &*? Fixed.one), 2 &*? count &*? Fixed.one)
        return max(1, Int64(clamping: ms))
    }

    static func ssrcText(_ v: StatsValue?) -> String? {
        switch v {
        case .number(let n): return String(Fixed.floorDiv(n.raw, Fixed.one))
        case .text(let t): return t
        default: return nil
        }
    }

    // MARK: Writing payloads

    @discardableResult
    private mutating func begin(_ ts: Int64, _ event: ImportedPiece.Event, _ kind: ImportedPiece.Kind) -> Int {
        pieces.append(ImportedPiece(ts: ts, event: event, start: out.count, kind: kind))
        return pieces.count - 1
    }

    /// Where the payload of piece `i` of `pieces` lies in an `out` of
    /// `count` bytes (payloads are contiguous in creation order).
    static func payloadRange(_ pieces: [ImportedPiece], _ i: Int, outCount count: Int) -> Range<Int> {
        pieces[i].start..<(i + 1 < pieces.count ? pieces[i + 1].start : count)
    }

    private mutating func trackFields(_ publisher: String, _ track: String) {
        ConnectionConverter.appendTrackFields(publisher, track, to: &out)
    }

    /// A track event's `,"publisher":…,"track":…` (the converter's and the
    /// assembler's own track events alike).
    static func appendTrackFields(_ publisher: String, _ track: String, to out: inout [UInt8]) {
        out += Array(",\"publisher\":".utf8)
        appendString(publisher, to: &out)
        out += Array(",\"track\":".utf8)
        appendString(track, to: &out)
    }

    private mutating func status(_ ts: Int64, _ k: Int, _ publisher: String, _ track: String, timedOut: Bool) {
        let i = begin(ts, .receiveStreamStatus, .track)
        pieces[i].track = Int32(k)
        pieces[i].timedOut = timedOut
        trackFields(publisher, track)
        text(timedOut ? ",\"timedOut\":true}\n" : ",\"timedOut\":false}\n")
    }

    private mutating func text(_ s: String) { out.append(contentsOf: s.utf8) }

    /// Hundredths as a short decimal: 30 → `0.3`, 5 → `0.05`, 10000 → `100`.
    static func appendHundredths(_ h: Int128, to out: inout [UInt8]) {
        var s = String(h / 100)
        let cents = Int(h % 100)
        if cents != 0 {
            s += cents % 10 == 0 ? ".\(cents / 10)" : (cents < 10 ? ".0\(cents)" : ".\(cents)")
        }
        out.append(contentsOf: s.utf8)
    }

    /// A JSON string literal (control characters, quotes and backslashes escaped).
    static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(b >> 4)], hex[Int(b & 15)]]
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

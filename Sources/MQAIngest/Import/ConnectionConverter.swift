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
    var out: [UInt8] = []
    var pieces: [ImportedPiece] = []
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
    /// The runs of samples that received RTP, and of those whose received
    /// loss was above `ReceivedLoss.lossyPct` or RTT above
    /// `ReceivedLoss.slowRttMs`: the connection's `ReceivedLoss`.
    private(set) var receivedSpans: [ReceivedLoss.Span] = []
    private(set) var lossRuns: [ReceivedLoss.Run] = []
    private(set) var rttRuns: [ReceivedLoss.Run] = []
    /// Context from standard stats (the summary's, never the figures).
    var paths: [String] = []
    var limitedMs: [String: Int64] = [:]
    /// The local outbound video reports of the previous sample.
    var sendingVideo: Set<String> = []
    var concealed: (samples: Fixed, received: Fixed) = (.zero, .zero)
    var concealmentCounters: [String: (samples: Fixed, received: Fixed)] = [:]
    var sawConcealment = false
    /// The path is read again only when the pair's local candidate changes.
    var lastLocalCandidate: String?
    var previousTs: Int64?
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
    var receivedNothing = false
    private var lastPairBytes: Fixed?
    /// When the connection's transport said its DTLS was closed: the far
    /// end hung up (its close alert), whatever ICE logs after.
    private(set) var farEndClosedAt: Int64?
    /// Pauses that came as every inbound stream stopped at once: a sender
    /// muting, or the network going dark; the state log tells which once
    /// it is all known (`finish`).
    var darkPauses: [(piece: Int, track: Int, showing: Bool)] = []
    /// Each remote-inbound report's own `timestamp` at the last sample:
    /// one that has not moved since holds no new word from the far end.
    private var remoteStamps: [String: Fixed] = [:]
    /// The video tracks in the order first seen, and where each key is:
    /// an array walked per sample, not a dictionary of copies.
    var tracks: [Track] = []
    var trackIndex: [String: Int] = [:]
    /// Per track, the index in the current sample's reports (-1: absent);
    /// kept between samples so that no sample allocates one.
    var presentScratch: [Int] = []
    /// Per track, whether its packets grew in this sample (when present).
    var grewScratch: [Bool] = []

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
        if samples == 0 { noteFirstSample(sample) }
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

        var rtp = countRTP(sample)
        var interval: Int128 = 0
        if let previous = previousStatsTime { interval = sample.statsTime.raw &-? previous.raw }
        previousStatsTime = sample.statsTime
        /// kbps = bytes·8 / ms; both in 10⁻¹⁸ units, which cancel.
        func kbps(_ b: Fixed) -> Int128 {
            guard interval > 0 else { return 0 }
            return Fixed.floorDiv((16 &*? max(0, b.raw)) &+? interval, 2 &*? interval)
        }
        let media = max(0, rtp.bytes.raw) &+? max(0, rtp.sentBytes.raw)
        mediaBytes = mediaBytes &+? media
        let receivedAny = (rtp.received.raw &+? rtp.lost.raw) != 0
        noteFarEnd(sample, ts: ts, receivedAny: receivedAny)
        let sentAny = rtp.packetsSentKnown ? rtp.sentPackets.isPositive : rtp.sentBytes.isPositive
        // No RTP either way: no report (no data is not perfect quality).
        // Nor when it only sent and no word came back from the far end
        // (no remote-inbound report with a loss in the sample, or none
        // new since the last): the mean loss of no reports is no figure,
        // and 0 % would be "perfect".
        let heardBack = noteRemoteReports(sample)
        let senderView = receivedAny || !heardBack ? nil : ConnectionConverter.senderSide(sample)
        if receivedAny || (sentAny && senderView?.loss != nil) {
            var lossHundredths: Int128 = 0
            var bitrate: Int128 = 0
            let rtt = ConnectionConverter.roundTrip(sample, report)
            if receivedAny {
                let expected = rtp.received.raw &+? rtp.lost.raw
                if expected > 0 && rtp.lost.raw > 0 {
                    lossHundredths = min(10_000, Fixed.floorDiv((20_000 &*? rtp.lost.raw) &+? expected, 2 &*? expected))
                }
                bitrate = kbps(rtp.bytes)
                noteReceived(ts, lossHundredths: lossHundredths, rttMs: rtt)
            } else {
                // Only sending: the far end's view of this side's streams.
                lossHundredths = senderView?.loss ?? 0
                rtp.jitter = senderView?.jitter
                bitrate = kbps(rtp.sentBytes)
            }
            appendQualityReport(ts, media: media, lossHundredths: lossHundredths, rtt: rtt, jitter: rtp.jitter ?? 0, bitrate: bitrate)
        }
        videoTracks(sample, report)
        noteContext(sample, report)
        previousTs = ts
    }

    /// The first sample: whether the connection was fresh then. No pair
    /// yet: not even checking. Pairs without the counter tell nothing,
    /// and nothing unsure is placed.
    private mutating func noteFirstSample(_ sample: StatsSample) {
        firstTs = sample.ts
        var responses: Fixed? = nil
        var pairs = false
        for (_, r) in sample.reports where r.category == .candidatePair {
            pairs = true
            if let n = r.number(.responsesReceived), n > (responses ?? Fixed(integer: -1)) { responses = n }
        }
        firstSampleFresh = !pairs || responses.map { !($0 > Fixed(integer: 10)) } ?? false
    }

    /// What a sample's RTP counters moved by since the last one.
    private struct RTPDeltas {
        var lost = Fixed.zero
        var received = Fixed.zero
        var bytes = Fixed.zero
        /// The largest audio jitter of a stream that received, ms.
        var jitter: Int64? = nil
        var sentPackets = Fixed.zero
        var sentBytes = Fixed.zero
        var packetsSentKnown = false
    }

    /// Counters, loss, bitrate, jitter over the local inbound-rtp reports;
    /// what was sent over the outbound ones. A counter that went back
    /// means its report restarted: it counts from zero.
    private mutating func countRTP(_ sample: StatsSample) -> RTPDeltas {
        var d = RTPDeltas()
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
                if nowPackets != nil { d.packetsSentKnown = true }
                let last = sent[id]
                var base = last ?? (.zero, .zero)
                if let last, (nowPackets.map { $0 < last.packets } ?? false) || (nowBytes.map { $0 < last.bytes } ?? false) {
                    base = (.zero, .zero)
                }
                let current = (packets: nowPackets ?? base.packets, bytes: nowBytes ?? base.bytes)
                d.sentPackets = d.sentPackets + (current.packets - base.packets)
                d.sentBytes = d.sentBytes + (current.bytes - base.bytes)
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
                base = (.zero, .zero, .zero)
            }
            let current = (lost: nowLost ?? base.lost, received: nowReceived ?? base.received, bytes: nowBytes ?? base.bytes)
            let dReceived = current.received - base.received
            d.lost = d.lost + (current.lost - base.lost)
            d.received = d.received + dReceived
            d.bytes = d.bytes + (current.bytes - base.bytes)
            counters[id] = current
            if current.received.isPositive || current.bytes.isPositive {
                carriedMedia = true
                if r.isKind("audio") { receivedAudioStreams.insert(id) } else if r.isKind("video") { receivedVideoStreams.insert(id) }
            }
            if dReceived.isPositive && r.isKind("audio"), let j = r.number(.jitter) {
                d.jitter = max(d.jitter ?? 0, j.millisecondsHalfUp)
            }
        }
        return d
    }

    /// Whether the far end went dark (no RTP, and the pair in use heard
    /// nothing either: no RTCP, no ICE answer; a peer that muted
    /// everything still sends reports), and when it closed DTLS.
    private mutating func noteFarEnd(_ sample: StatsSample, ts: Int64, receivedAny: Bool) {
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
    }

    /// Whether a remote-inbound report is new in this sample: an rtcstats
    /// sample repeats the far end's last report until a new one comes
    /// (webrtc-internals holds it only in the second it came).
    private mutating func noteRemoteReports(_ sample: StatsSample) -> Bool {
        var heardBack = false
        for (id, r) in sample.reports where r.category == .remoteInbound {
            let stamp = r.number(.timestamp)
            if stamp == nil || remoteStamps[id] != stamp { heardBack = true }
            if let stamp { remoteStamps[id] = stamp }
        }
        return heardBack
    }

    /// The `quality_report` line. Absurd counters can make numbers no
    /// 64-bit decimal holds exactly (18 digits); the validator would
    /// reject the whole report, so they are capped here (found by the
    /// rtcstats fuzz target).
    private mutating func appendQualityReport(_ ts: Int64, media: Int128, lossHundredths: Int128, rtt: Int64, jitter: Int64,
                                              bitrate: Int128) {
        begin(ts, .qualityReport, .report(media: media, from: previousTs))
        text(",\"loss\":")
        ConnectionConverter.appendHundredths(lossHundredths, to: &out)
        let cap: Int128 = 999_999_999_999_999_999
        text(",\"rtt\":\(min(Int128(rtt), cap)),\"jitter\":\(min(Int128(jitter), cap)),\"bitrate\":\(min(bitrate, cap)),\"mos\":null}\n")
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

    /// Notes a sample that received RTP, with its loss in hundredths of a
    /// percent and its RTT: it extends the span (and a lossy or slow one
    /// the run) that ended at most `ReceivedLoss.bridgedGapMs` before it,
    /// or starts one.
    private mutating func noteReceived(_ ts: Int64, lossHundredths: Int128, rttMs: Int64) {
        let lastReceived = receivedSpans.last?.end
        if let lastReceived, ts - lastReceived <= ReceivedLoss.bridgedGapMs {
            receivedSpans[receivedSpans.count - 1].end = ts
        } else {
            receivedSpans.append(.init(start: ts, end: ts))
        }
        // Its interval began at the sample before, if that one received.
        let from = previousTs != nil && lastReceived == previousTs ? previousTs! : ts
        if lossHundredths > Int128(ReceivedLoss.lossyPct * 100) {
            Self.extend(&lossRuns, from, ts, peak: Double(lossHundredths) / 100)
        }
        if Double(rttMs) > ReceivedLoss.slowRttMs {
            // Under 10^15, a whole number every reader of the line keeps exactly.
            Self.extend(&rttRuns, from, ts, peak: Double(min(rttMs, 999_999_999_999_999)))
        }
    }

    private static func extend(_ runs: inout [ReceivedLoss.Run], _ from: Int64, _ ts: Int64, peak: Double) {
        if let last = runs.last, from - last.end <= ReceivedLoss.bridgedGapMs {
            runs[runs.count - 1].end = ts
            runs[runs.count - 1].peak = max(last.peak, peak)
        } else {
            runs.append(ReceivedLoss.Run(start: from, end: ts, peak: peak))
        }
    }

    /// What the connection received and lost, by the publishers of its
    /// video tracks; nil when it received no RTP.
    var receivedLoss: ReceivedLoss? {
        guard !receivedSpans.isEmpty else { return nil }
        return ReceivedLoss(peers: Array(Set(tracks.map(\.publisher))).sorted(), spans: receivedSpans, lossRuns: lossRuns, rttRuns: rttRuns, paths: paths)
    }
}

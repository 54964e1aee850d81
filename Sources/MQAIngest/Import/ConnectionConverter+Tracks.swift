import MQABase
import MQAModel
import MQAStore

// Received video tracks: subscriptions, first frames, freezes and pauses,
// told from packets, frames and the browser's freeze counters.
extension ConnectionConverter {
    /// The video tracks of a sample: subscriptions follow the packets (a
    /// track that receives none is not being sent: a pause, or never sent),
    /// first frames the decoder, freezes the browser's freeze counters
    /// where it keeps them, else decoding that stops while packets arrive.
    mutating func videoTracks(_ sample: StatsSample, _ report: (String) -> StatsReport?) {
        let clock = SampleClock(ts: sample.ts, index: samples - 1, previous: previousTs, returns: returns)
        indexVideoTracks(sample, report)
        endGoneSubscriptions(sample, clock)
        endPausedSubscriptions(sample, clock)
        for k in tracks.indices where presentScratch[k] >= 0 {
            stepTrack(k, sample.reports[presentScratch[k]].report, clock)
        }
    }

    /// The times of one sample, as the track steps place events.
    struct SampleClock {
        /// The sample's time, and its index among the connection's samples.
        var ts: Int64
        var index: Int
        /// The sample before's time, if any.
        var previous: Int64?
        /// The event inside (previous, ts] is known only to the interval:
        /// its midpoint (rounded down) stands for it.
        var mid: Int64
        /// Where subscriptions and first frames go: the midpoint, but not
        /// before the connection came back in this interval (a 6 s
        /// sampling gap over a drop put a track's return 2 s before its
        /// connection's).
        var arrived: Int64

        init(ts: Int64, index: Int, previous: Int64?, returns: [Int64]) {
            self.ts = ts
            self.index = index
            self.previous = previous
            mid = previous.map { $0 + (ts - $0) / 2 } ?? ts
            let back = previous.flatMap { p in returns.last { $0 > p && $0 <= ts } }
            arrived = max(mid, back ?? mid)
        }
    }

    /// Finds each track of the sample (new ones get their publisher), and
    /// marks in `presentScratch` the report that carries it, or -1.
    mutating func indexVideoTracks(_ sample: StatsSample, _ report: (String) -> StatsReport?) {
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
                let publisher = key.flatMap { publishers[$0] } ?? ConnectionConverter.unnamedPublisher(ConnectionConverter.ssrcText(r[.ssrc]) ?? id)
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
    }

    /// Ends the subscriptions of tracks the sample no longer holds.
    mutating func endGoneSubscriptions(_ sample: StatsSample, _ clock: SampleClock) {
        for k in tracks.indices where tracks[k].subscribed && presentScratch[k] < 0 {
            // Its report now carries another track (Chrome names a new track
            // on the same SSRC when the sender swaps it): one tile handed on
            // at the midpoint where the next begins, not two overlapping.
            let handedOn = sample.reports.contains { $0.id == tracks[k].report && $0.report.isLocalInbound }
            endSubscription(k, at: handedOn ? clock.mid : clock.ts)
        }
    }

    /// Packets first, for every track: a pause ends its subscription among
    /// the sample's unsubscribes, before any track's subscribe or status
    /// (webrtc-import.md: "the quality report first, then unsubscribes,
    /// then per track its subscribe and status"). Records in `grewScratch`
    /// whether each present track's packets grew.
    mutating func endPausedSubscriptions(_ sample: StatsSample, _ clock: SampleClock) {
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
                if let piece = endSubscription(k, at: clock.mid), receivedNothing {
                    darkPauses.append((piece, k, showing))
                }
                presentScratch[k] = -1
            }
        }
    }

    /// What a track's counters say of the interval.
    struct TrackCounters {
        /// A frame decoded since the sample before (any, after a restart).
        var newFrame = false
        /// The track had decoded frames before this sample.
        var hadFrames = false
        /// The report keeps freeze counters (then they, not the frames, tell freezes).
        var hasFreezeCount = false
        var freezeGrew = false
        /// The growth of `totalFreezesDuration`, where it grew.
        var freezeMs: Int64 = 0
        /// Packets lost by the dozen: a gap in the sequence numbers, not
        /// the odd packet a lossy network drops after a real resume.
        var lostGrew = false

        /// Reads `r`'s counters against `t`'s last ones, and records them.
        init(_ r: StatsReport, _ t: inout Track) {
            let frames = r.number(.framesDecoded)
            hadFrames = t.lastFrames?.isPositive == true
            if let frames {
                // A counter that went backwards restarted: any frame is new.
                if let last = t.lastFrames, frames >= last { newFrame = frames > last } else { newFrame = frames.isPositive }
                t.lastFrames = frames
            }
            let freezes = r.number(.freezeCount)
            let freezesDuration = r.number(.totalFreezesDuration)
            if let freezes {
                hasFreezeCount = true
                if let last = t.lastFreezes, freezes >= last {
                    freezeGrew = freezes > last
                    if freezeGrew, let d = freezesDuration, let lastD = t.lastFreezesDuration, d >= lastD {
                        freezeMs = (d - lastD).millisecondsHalfUp
                    }
                }
                t.lastFreezes = freezes
                t.lastFreezesDuration = freezesDuration
            }
            let lost = r.number(.packetsLost)
            lostGrew = lost.map { now in t.lastLost.map { now - $0 >= Fixed(raw: 10 * Fixed.one) } ?? false } ?? false
            if lost != nil { t.lastLost = lost }
        }
    }

    /// One present track through one sample. The track is copied out and
    /// written back once (the array holds hundreds of thousands of these
    /// updates in a long dump).
    mutating func stepTrack(_ k: Int, _ r: StatsReport, _ clock: SampleClock) {
        var t = tracks[k]
        let grew = grewScratch[k]
        let counters = TrackCounters(r, &t)
        undoDarkPause(k, &t, grew: grew, counters, clock)
        t.backFromDark = nil
        guard subscribeOrGoOn(k, &t, grew: grew, counters, clock) else {
            tracks[k] = t  // never sent yet, or still paused
            return
        }
        let firstFrameNow = showFrames(k, &t, counters, clock)
        if counters.freezeGrew && t.shownFrame && !(firstFrameNow && t.afterPause) {
            countedFreeze(k, &t, counters, clock)
        }
        tracks[k] = t
    }

    /// Back after going dark with packets lost on the way (counted in the
    /// sample they came back in, or the next): they were sent, so nobody
    /// paused. The network dropped them for a while too short for ICE to
    /// call a drop (3 s in a recorded call): the video froze from the stop
    /// until it came back, and the subscription never ended.
    mutating func undoDarkPause(_ k: Int, _ t: inout Track, grew: Bool, _ c: TrackCounters, _ clock: SampleClock) {
        if !t.subscribed, grew, c.lostGrew, let d = openDarkPause(of: k, through: clock.ts), case let dark = darkPauses[d] {
            darkPauses.remove(at: d)
            pieces[dark.piece].dropped = true
            t.subscribed = true
            t.packetIntervals = 2
            if dark.showing {
                status(pieces[dark.piece].ts, k, t.publisher, t.key, timedOut: true)
                if c.newFrame {
                    // Frames came back in this interval, as a first
                    // frame would be placed.
                    status(clock.arrived, k, t.publisher, t.key, timedOut: false)
                    t.lastStallEnd = clock.arrived
                } else {
                    t.stalled = true
                }
            }
        } else if let back = t.backFromDark, back.sample == clock.index - 1, c.lostGrew, t.subscribed, t.subscribePiece >= 0,
                  let d = darkPauses.firstIndex(where: { $0.piece == back.pause })
        {
            let dark = darkPauses.remove(at: d)
            pieces[dark.piece].dropped = true
            pieces[t.subscribePiece].dropped = true
            t.pending = nil
            if dark.showing {
                // The first frame of the dropped subscription ends it.
                status(pieces[dark.piece].ts, k, t.publisher, t.key, timedOut: true)
            }
        }
    }

    /// Subscribes a track whose packets arrive, or counts one more interval
    /// of a subscription; false for a track not subscribed (never sent
    /// yet, or still paused).
    mutating func subscribeOrGoOn(_ k: Int, _ t: inout Track, grew: Bool, _ c: TrackCounters, _ clock: SampleClock) -> Bool {
        guard !t.subscribed else {
            t.packetIntervals += 1
            if t.packetIntervals >= 2 { t.pending = nil }
            return true
        }
        guard grew else { return false }
        t.subscribed = true
        let piece = begin(clock.arrived, .streamSubscribe, .track)
        t.pending = piece
        pieces[piece].track = Int32(k)
        trackFields(t.publisher, t.key)
        text(",\"kind\":\"camera\"}\n")
        t.subscribeTs = clock.arrived
        t.subscribeSample = clock.index
        t.subscribeSampleTs = clock.ts
        t.afterPause = c.hadFrames
        t.subscribePiece = piece
        if let d = openDarkPause(of: k, through: clock.ts) { t.backFromDark = (darkPauses[d].piece, clock.index) }
        t.packetIntervals = 1
        t.shownFrame = false
        t.stalled = false
        t.samplesWithoutFrame = 0
        return true
    }

    /// First frames, frames after a stall, and (without freeze counters)
    /// a stall from 2 samples without a new frame. Returns whether this
    /// sample showed the track's first frame.
    mutating func showFrames(_ k: Int, _ t: inout Track, _ c: TrackCounters, _ clock: SampleClock) -> Bool {
        guard c.newFrame else {
            if t.shownFrame && !t.stalled && !c.hasFreezeCount {
                t.samplesWithoutFrame += 1
                if t.samplesWithoutFrame >= 2 {
                    t.stalled = true
                    status(clock.ts, k, t.publisher, t.key, timedOut: true)
                }
            }
            return false
        }
        t.samplesWithoutFrame = 0
        if t.shownFrame {
            if t.stalled {
                t.stalled = false
                t.lastStallEnd = clock.ts
                status(clock.ts, k, t.publisher, t.key, timedOut: false)
            }
            return false
        }
        t.shownFrame = true
        t.stalled = false
        t.pending = nil
        // The first frame came in (previous, ts], the first packets in the
        // subscription's sample: only the time between those two samples
        // is a delay the samples prove, and only that is claimed
        // (webrtc-import.md: never slow to start from sampling granularity
        // alone): the subscription moves to the end of its interval, the
        // frame to the start of its own. Within one interval of the first
        // packets, no delay is claimed.
        var at = t.subscribeTs
        if clock.index - t.subscribeSample > 1, let previous = clock.previous, previous > t.subscribeSampleTs {
            if t.subscribePiece >= 0 { pieces[t.subscribePiece].ts = t.subscribeSampleTs }
            t.subscribeTs = t.subscribeSampleTs
            at = previous
        }
        t.firstFrameTs = at
        status(at, k, t.publisher, t.key, timedOut: false)
        return true
    }

    /// A freeze the browser counted: it ended by this sample and lasted
    /// the duration's growth (never before the first frame: nothing was
    /// shown to freeze). The freeze the first frame after a pause ends is
    /// that pause (Chrome counts the gap of a stopped stream as one freeze
    /// when it resumes): no media came, so the caller makes no stall of it.
    mutating func countedFreeze(_ k: Int, _ t: inout Track, _ c: TrackCounters, _ clock: SampleClock) {
        let lasted = c.freezeMs > 0 ? c.freezeMs : (clock.ts - (clock.previous ?? clock.ts)) / 2
        // Several freezes in one interval are one stall of their summed
        // duration; dated back, it may reach into the stall before, which
        // it then follows (overlapping, it was lost as a repeat of a stall
        // already open).
        let start = max(t.firstFrameTs, clock.ts - lasted, t.lastStallEnd)
        if start < clock.ts {
            status(start, k, t.publisher, t.key, timedOut: true)
            status(clock.ts, k, t.publisher, t.key, timedOut: false)
            t.lastStallEnd = clock.ts
        }
    }

    /// Track `k`'s last dark pause, when still standing and the connection
    /// did not come back from a drop between it and `ts` (a drop and its
    /// return are `finish`'s to judge).
    func openDarkPause(of k: Int, through ts: Int64) -> Int? {
        guard let d = darkPauses.lastIndex(where: { $0.track == k }), !pieces[darkPauses[d].piece].dropped else { return nil }
        let stop = pieces[darkPauses[d].piece].ts
        return returns.contains { $0 > stop && $0 <= ts } ? nil : d
    }

    /// Whether a present track's packets (and payload bytes) grew since the
    /// last sample; records the counters.
    static func packetsGrew(_ t: inout Track, _ r: StatsReport) -> Bool {
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

    /// Ends track `k`'s subscription; the unsubscribe's piece, or nil when
    /// the subscription was taken back whole (one that never got past one
    /// interval of packets without a frame).
    @discardableResult
    mutating func endSubscription(_ k: Int, at ts: Int64) -> Int? {
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

    /// Subscriptions that never got past sampling granularity are taken back.
    mutating func finishTracks() {
        for k in tracks.indices {
            guard let p = tracks[k].pending, !tracks[k].shownFrame else { continue }
            pieces[p].dropped = true
            tracks[k].pending = nil
        }
    }
}

extension ConnectionConverter {
    /// The publisher of a track whose sender no description names:
    /// `remote-<ssrc>`, or `remote-<report id>` without an SSRC, held to a
    /// uid's 256 characters (ingest rejects a longer one, and the store's
    /// peers must read back). No browser writes a report id that long; a
    /// longer one keeps its start and gets a digest of the whole, so that
    /// two such ids stay two publishers.
    static func unnamedPublisher(_ name: String) -> String {
        let whole = "remote-" + name
        if whole.unicodeScalars.count <= 256 { return whole }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for b in name.utf8 { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        let digest = String(hash, radix: 16)
        let keep = 256 - "remote-".count - 1 - digest.count
        return "remote-" + String(String.UnicodeScalarView(name.unicodeScalars.prefix(keep))) + "-" + digest
    }
}

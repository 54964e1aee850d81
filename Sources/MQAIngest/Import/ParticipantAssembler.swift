import MQABase
import MQAModel
import MQAStore

/// One connection of a dump, converted, with what the dump said of it.
struct ConnectionResult {
    var converter: ConnectionConverter
    var meta: ConnectionMeta
    /// Why it has no samples, in the words of its format.
    var emptyReason: String?
    /// Sample times that were out of range and left out (a
    /// webrtc-internals series; an rtcstats line is rejected as it is read).
    var outOfRange: [Int64] = []
}

/// Makes one participant out of a dump's connections (Docs/import.md,
/// "One dump, one person"): which connections count, when the person
/// joined, dropped, came back and left, which connection's quality feed
/// speaks for them at each moment, and the engine of the call.
struct ParticipantAssembler {
    let meeting: String
    let uid: String
    let file: String
    var title: String?
    var client: UserAgentClient?
    /// The dump's endpoint id (Jitsi), where the uid is another of its
    /// names: the other participants' dumps name this one's tracks after it.
    var endpointID: String?

    /// How a counted connection ended.
    enum Outcome: Equatable {
        /// The samples (or the dump) stop with the connection up.
        case ended
        /// The state log ends with the connection `disconnected`: a drop
        /// the dump never saw it come back from.
        case dropped
        /// The app closed it.
        case closed
        /// `failed`: an abnormal disconnect, with its error.
        case failed(String)
        /// Never reached `connected`: the call never started.
        case setupFailed
    }

    struct Span {
        var index: Int
        var start: Int64
        /// When the connection was over: its outcome's time.
        var terminal: Int64
        var outcome: Outcome
        /// `disconnected` or `failed` (true; a failure with its error) and
        /// back (false) while it lasted.
        var flips: [(ts: Int64, down: Bool, error: String?)]
    }

    /// Appends the participant's events (NDJSON) to `conversion.lines`,
    /// its connections to `conversion.connections`, and the ones left out
    /// to `conversion.skipped`. With `emit`, the lines go to it a megabyte
    /// at a time instead (whole lines), so that the dump's events are never
    /// held twice, once in the converters and once as lines.
    func assemble(_ results: [ConnectionResult], into conversion: inout Conversion,
                  emit: ((UnsafeBufferPointer<UInt8>) throws -> Void)? = nil) throws {
        let counted = classify(results, &conversion)
        guard !counted.isEmpty else { return }
        let spans = counted.map { span(results[$0], index: $0) }

        // Events are gathered as slots (no bytes), sorted, then written
        // once into the output: a dump's hundreds of thousands of events
        // cost no per-event allocation.
        struct Slot {
            var ts: Int64
            var rank: Rank
            var connection: Int
            var seq: Int
            /// A piece of `connection`'s converter, or (negative) an own event: -1 - index.
            var source: Int
        }
        var slots: [Slot] = []
        var owns: [(event: String, payload: String)] = []
        var eventsPer = [Int](repeating: 0, count: results.count)
        func own(_ ts: Int64, _ rank: Rank, _ connection: Int, _ event: String, _ payload: String) {
            slots.append(Slot(ts: ts, rank: rank, connection: connection, seq: owns.count, source: -1 - owns.count))
            owns.append((event, payload))
            eventsPer[connection] += 1
        }

        // Who was there, when: starts, drops and ends in time order.
        enum Boundary { case start, down, up, end }
        var boundaries: [(ts: Int64, kind: Boundary, span: Int, error: String?)] = []
        for (k, s) in spans.enumerated() {
            boundaries.append((s.start, .start, k, nil))
            for f in s.flips where f.ts >= s.start && f.ts < s.terminal { boundaries.append((f.ts, f.down ? .down : .up, k, f.error)) }
            boundaries.append((s.terminal, .end, k, nil))
        }
        func order(_ b: Boundary) -> Int { b == .end ? 0 : b == .down ? 1 : b == .up ? 2 : 3 }
        boundaries.sort { ($0.ts, order($0.kind), $0.span) < ($1.ts, order($1.kind), $1.span) }
        func othersActive(_ k: Int, at ts: Int64) -> Bool {
            spans.indices.contains { j in j != k && spans[j].start <= ts && ts < spans[j].terminal }
        }
        // Which connections are `disconnected` now, as the boundaries pass.
        var isDown = [Bool](repeating: false, count: spans.count)
        /// Another connection open and not `disconnected`: the person is
        /// still in the call. Open but down, it holds nobody: in a mesh call
        /// whose every connection dropped (the person's network gone), each
        /// one's drop found the others open and none told a disconnect.
        func othersUp(_ k: Int, at ts: Int64) -> Bool {
            spans.indices.contains { j in
                j != k && spans[j].start <= ts && ts < spans[j].terminal && (!isDown[j] || comesUp(j, at: ts))
            }
        }
        /// Starts or comes back at `ts`: the boundaries of one instant are
        /// one moment, so a drop beside a return there leaves no gap (told
        /// in boundary order, it was a reconnect, then a disconnect, at T).
        func comesUp(_ j: Int, at ts: Int64) -> Bool {
            spans[j].start == ts || spans[j].flips.contains { !$0.down && $0.ts == ts }
        }
        let engine = self.engine(results, counted)
        var joined = false
        var present = false
        // When the person was last gone (a disconnect or a leave emitted).
        var goneAt: Int64? = nil
        // The times the person was away, from a disconnect to the reconnect,
        // in time order (`isAway`).
        var away: [(from: Int64, to: Int64)] = []
        var replays: [Int: TrackReplay] = [:]
        /// At a reconnect at `ts`: the disconnect ended every subscription
        /// (tiers.md); the tracks that kept coming on the connections up now
        /// are subscribed again, as the SDK does, so that a blip does not end
        /// every tile for good. Told after the reconnect (its connection's
        /// order), each with a first frame at once when it was showing frames.
        func resubscribe(at ts: Int64, reconnecting c: Int) {
            guard let gone = goneAt else { return }
            away.append((gone, ts))
            for j in spans.indices where spans[j].start <= ts && ts < spans[j].terminal {
                let k = spans[j].index
                // Only where samples go on after the reconnect: a state log
                // that outlives the stats tells the connection came back, not
                // that any video did (a real dump's stats ended at +0:19 and
                // two reconnects later invented 2 minutes of watched tiles).
                guard results[k].converter.lastTs > ts else { continue }
                var replay = replays[k] ?? TrackReplay(results[k].converter)
                for t in replay.resumable(at: ts, results[k].converter) {
                    own(ts, .resumed, c, "stream_subscribe", ParticipantAssembler.trackPayload(t.publisher, t.track, ",\"kind\":\"camera\"}\n"))
                    if t.showing {
                        own(ts, .resumed, c, "receive_stream_status", ParticipantAssembler.trackPayload(t.publisher, t.track, ",\"timedOut\":false}\n"))
                    }
                }
                replays[k] = replay
            }
        }
        for b in boundaries {
            let s = spans[b.span]
            let c = s.index
            switch b.kind {
            case .start:
                // A drop logged before its first sample holds until its return.
                isDown[b.span] = s.flips.last { $0.ts < s.start }?.down ?? false
                if !joined {
                    own(b.ts, .arrival, c, "meeting_join", joinPayload(engine))
                    joined = true
                } else if !present {
                    own(b.ts, .arrival, c, "reconnect", "}\n")
                    resubscribe(at: b.ts, reconnecting: c)
                }
                present = true
            case .down:
                let wasDown = isDown[b.span]
                isDown[b.span] = true
                let outcome = b.error.map { Outcome.failed($0) } ?? .dropped
                if present && !othersUp(b.span, at: b.ts) {
                    own(b.ts, .departure, c, "disconnect", ParticipantAssembler.dropPayload(outcome))
                    present = false
                    goneAt = b.ts
                } else if !present && wasDown && b.error != nil {
                    // A drop that then failed: the failure is told with its
                    // error, as when the connection never comes back (a
                    // return after it lost the failure, and its weight).
                    own(b.ts, .departure, c, "disconnect", ParticipantAssembler.dropPayload(outcome))
                }
            case .up:
                isDown[b.span] = false
                // A return at the first sample's time is no reconnect: not
                // joined yet, the join comes with the start.
                guard joined, !present else { continue }
                own(b.ts, .arrival, c, "reconnect", "}\n")
                present = true
                resubscribe(at: b.ts, reconnecting: c)
            case .end:
                if othersActive(b.span, at: b.ts) {
                    // Another connection carries on (a move between the
                    // bridge and P2P): the person stays, this one's tracks end.
                    for t in results[c].converter.openTracks {
                        own(b.ts, .departure, c, "stream_unsubscribe", ParticipantAssembler.trackPayload(t.publisher, t.track, "}\n"))
                    }
                    // The others all down: no live connection is left, unless
                    // the app closed this one (its peer left; the person
                    // stays, with connections a dead peer took down).
                    if present && !othersUp(b.span, at: b.ts) && s.outcome != .closed {
                        own(b.ts, .departure, c, "disconnect", ParticipantAssembler.dropPayload(s.outcome))
                        present = false
                        goneAt = b.ts
                    }
                    continue
                }
                // Back up at its very end (the state log outlasts the
                // samples): the return is told before the end.
                if !present, let last = s.flips.last, !last.down, last.ts == b.ts {
                    own(b.ts, .arrival, c, "reconnect", "}\n")
                    present = true
                    if let gone = goneAt { away.append((gone, b.ts)) }
                }
                switch s.outcome {
                case .ended:
                    // Followed by another connection of the person, the
                    // end was not the app's: a drop, then a `reconnect`.
                    // Down already, the drop was told.
                    if !present { break }
                    if spans.contains(where: { $0.start > b.ts }) {
                        own(b.ts, .departure, c, "disconnect", ParticipantAssembler.dropPayload(.dropped))
                    } else {
                        own(b.ts, .departure, c, "meeting_leave", "}\n")
                    }
                case .dropped:
                    // Told already when the drop came before the end.
                    if present { own(b.ts, .departure, c, "disconnect", ParticipantAssembler.dropPayload(.dropped)) }
                case .closed: own(b.ts, .departure, c, "meeting_leave", "}\n")
                case .failed, .setupFailed: own(b.ts, .departure, c, "disconnect", ParticipantAssembler.dropPayload(s.outcome))
                }
                if present { goneAt = b.ts }
                present = false
            }
        }
        // Gone for good: nothing after it is told.
        if !present, let gone = goneAt { away.append((gone, .max)) }

        // The pieces: every track event; a quality report only from the
        // busiest connection of its moment.
        let feeds = spans.map { s in
            results[s.index].converter.pieces.compactMap { p -> FeedContest.Report? in
                guard case .report(let media, let from) = p.kind else { return nil }
                return FeedContest.Report(ts: p.ts, from: from, rate: ParticipantAssembler.rate(media, from, p.ts))
            }
        }
        let outdone = FeedContest.outdone(feeds, spans: spans.map { ($0.start, $0.terminal) })
        for (k, s) in spans.enumerated() {
            let converter = results[s.index].converter
            var nextReport = 0
            for (i, p) in converter.pieces.enumerated() {
                if case .report = p.kind {
                    defer { nextReport += 1 }
                    if outdone[k][nextReport] { continue }
                }
                if p.dropped { continue }
                // A track's event while the person was away: the disconnect
                // ended its subscription (tiers.md), and the reconnect takes up
                // what still comes. Told, a stall found there opened a
                // subscription of its own, of no kind, with a "first frame"
                // at the return (a recorded one-way outage).
                if case .track = p.kind, ParticipantAssembler.isAway(p.ts, away) { continue }
                slots.append(Slot(ts: p.ts, rank: p.event == .qualityReport ? .report : .piece, connection: s.index, seq: i, source: i))
                eventsPer[s.index] += 1
            }
        }
        slots.sort { ($0.ts, $0.rank.rawValue, $0.connection, $0.seq) < ($1.ts, $1.rank.rawValue, $1.connection, $1.seq) }
        let envelope = envelopeBytes()
        // The converters' pieces and payloads, taken once (not per event).
        let pieces = results.map(\.converter.pieces)
        let outs = results.map(\.converter.out)
        let first = conversion.lines.count
        func flush() throws {
            guard let emit, conversion.lines.count > first else { return }
            try conversion.lines[first...].withUnsafeBufferPointer { try emit($0) }
            conversion.lines.removeSubrange(first...)
        }
        for slot in slots {
            if emit != nil && conversion.lines.count - first >= ParticipantAssembler.emitBytes { try flush() }
            ParticipantAssembler.appendHead(slot.ts, &conversion.lines)
            if slot.source >= 0 {
                let list = pieces[slot.connection]
                let p = list[slot.source]
                let name = p.event.name
                conversion.lines.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                conversion.lines += envelope
                conversion.lines += outs[slot.connection][
                    ConnectionConverter.payloadRange(list, slot.source, outCount: outs[slot.connection].count)]
            } else {
                let o = owns[-1 - slot.source]
                conversion.lines += o.event.utf8
                conversion.lines += envelope
                conversion.lines += o.payload.utf8
            }
        }
        try flush()
        for c in counted {
            let converter = results[c].converter
            conversion.connections.append(ImportedConnection(
                connection: converter.connection, samples: converter.samples, events: eventsPer[c]))
            var context = ConnectionContext(file: file, connection: converter.connection)
            context.meeting = meeting
            context.uid = uid
            context.paths = converter.paths
            context.limitedMs = converter.limitedMs
            context.concealment = converter.concealment
            context.knownAs = results[c].meta.knownAs
            context.received = converter.receivedLoss
            // Each received track's id in the sender's own words, where the
            // description received names the track on its SSRC.
            // And the publisher's other name: for a track the dump gave no
            // stream (`remote-<ssrc>`; Firefox's stats name no track) the
            // one its msid names, for one it did the SSRC's `remote-<ssrc>`,
            // which the sender's dump knows where an SFU renamed the stream.
            let senders = results[c].meta.senderTracks
            let streams = results[c].meta.ssrcPublishers
            var ambiguous: Set<String> = []
            for (name, ssrc) in zip(converter.trackNames, converter.trackSSRCs) {
                guard let ssrc else { continue }
                if let sender = senders[ssrc], sender != name.track { context.senderTracks[name.track] = sender }
                let bySSRC = "remote-" + ssrc
                guard let other = name.publisher == bySSRC ? streams[ssrc] : bySSRC, !ambiguous.contains(name.publisher) else { continue }
                if let known = context.senderPublishers[name.publisher], known != other {
                    // Two SSRCs under one stream (a camera and a screen): neither.
                    context.senderPublishers[name.publisher] = nil
                    ambiguous.insert(name.publisher)
                } else {
                    context.senderPublishers[name.publisher] = other
                }
            }
            if let endpoint = endpointID, endpoint != uid, !context.knownAs.contains(endpoint) { context.knownAs.append(endpoint) }
            if !context.isEmpty { conversion.contexts.append(context) }
        }
    }

    /// Whether `ts` lies inside one of `away`'s intervals (open at both
    /// ends), which come in time order: a binary search, since a dump may
    /// drop thousands of times and have as many track events.
    static func isAway(_ ts: Int64, _ away: [(from: Int64, to: Int64)]) -> Bool {
        // The last interval that begins before `ts`.
        let lo = away.partitionPoint { $0.from >= ts }
        return lo > 0 && ts < away[lo - 1].to
    }

    /// A `disconnect`'s payload for a connection that ended so: reason
    /// `network`, with the error of a failure (`setup_failed` for one that
    /// never connected); no error for a drop.
    static func dropPayload(_ outcome: Outcome) -> String {
        switch outcome {
        case .failed(let error): ",\"reason\":\"network\",\"error\":\"\(error)\"}\n"
        case .setupFailed: ",\"reason\":\"network\",\"error\":\"setup_failed\"}\n"
        default: ",\"reason\":\"network\"}\n"
        }
    }

    /// A track event's payload: publisher, track, then `tail`.
    static func trackPayload(_ publisher: String, _ track: String, _ tail: String) -> String {
        var payload: [UInt8] = []
        ConnectionConverter.appendTrackFields(publisher, track, to: &payload)
        return String(decoding: payload, as: UTF8.self) + tail
    }

    /// How many bytes of lines `assemble` gathers before it emits them.
    static let emitBytes = 1 << 20

    /// Bytes per ms over a report's interval; a first sample, with no
    /// interval, competes with nothing.
    static func rate(_ media: Int128, _ from: Int64?, _ ts: Int64) -> Double {
        guard let from, ts > from else { return 0 }
        // In whole bytes: Int128 → Double is a slow generic conversion, and
        // no real byte count needs more than 64 bits.
        let bytes = Int64(clamping: media / Fixed.one)
        return Double(bytes) / Double(ts - from)
    }

    /// The connections that count: those that carried media. Without any,
    /// the ones set up for media (RTP streams, not a STUN probe) that never
    /// connected: the call failed to start, which is a fact to show.
    func classify(_ results: [ConnectionResult], _ conversion: inout Conversion) -> [Int] {
        var counted: [Int] = []
        var candidates: [Int] = []
        for (i, r) in results.enumerated() {
            if r.converter.carriedMedia && r.converter.hasStandardStats { counted.append(i) }
            else if (r.converter.hasRTPStreams || r.meta.mediaSetUp) && !r.meta.stunOnly
                && ParticipantAssembler.neverConnected(r.meta, sampled: ParticipantAssembler.sampled(r.converter)) {
                candidates.append(i)
            }
        }
        let taken = counted.isEmpty ? candidates : counted
        for (i, r) in results.enumerated() where !taken.contains(i) {
            conversion.skipped.append(SkippedConnection(file: file, connection: r.converter.connection, reason: skipReason(r)))
        }
        return taken
    }

    /// No `connected`/`completed` in a state log that tells something: it
    /// logged some state, or it was sampled with none logged (a connection
    /// left in `new` fires no state change at all, as a broadcast whose ICE
    /// never started does).
    /// Sampled in a form the import reads: legacy `goog*` samples say
    /// nothing of whether media flowed.
    static func sampled(_ c: ConnectionConverter) -> Bool {
        c.samples > 0 && (c.hasStandardStats || !c.hasLegacyStats)
    }

    static func neverConnected(_ meta: ConnectionMeta, sampled: Bool) -> Bool {
        let states = meta.loggedStates
        guard !states.isEmpty || sampled else { return false }
        return !states.contains { $0.state == "connected" || $0.state == "completed" }
    }

    func skipReason(_ r: ConnectionResult) -> String {
        let c = r.converter
        if c.samples == 0 { return r.emptyReason ?? "no stats samples" }
        if !c.hasStandardStats {
            return c.hasLegacyStats
                ? "legacy goog* stats only (no standard getStats reports)"
                : "no standard stats (no inbound-rtp, remote-inbound-rtp or candidate-pair report)"
        }
        var why = "no media: never sent or received RTP"
        if r.meta.stunOnly { why += " (a probe: STUN-only ICE servers)" }
        else if r.meta.dataChannel { why += " (a data channel)" }
        else if c.hasRTPStreams && !ParticipantAssembler.neverConnected(r.meta, sampled: ParticipantAssembler.sampled(c)) { why += " (set up for media, nothing flowed)" }
        return why
    }

    /// A counted connection's span and fate, from its samples and its state log.
    func span(_ r: ConnectionResult, index: Int) -> Span {
        let c = r.converter
        let states = r.meta.effectiveStates
        let timed = states.compactMap { s in s.ts.map { (ts: $0, state: s.state, ice: s.ice) } }
        let firstState = r.meta.loggedStates.first { $0.ts != nil }?.ts
        let start = c.samples > 0 ? c.firstTs : (firstState ?? r.meta.createdAt ?? 0)
        var end = c.samples > 0 ? c.lastTs : start
        if let last = timed.last?.ts { end = max(end, last) }
        if let closed = r.meta.closedAt { end = max(end, closed) }

        var flips: [(ts: Int64, down: Bool, error: String?)] = []
        var up = false
        var down = false
        var failed: (ts: Int64, ice: Bool)? = nil
        var closedState: Int64? = nil
        for s in timed {
            switch s.state {
            case "connected", "completed":
                if down { flips.append((s.ts, false, nil)) }
                up = true
                down = false
                failed = nil
            case "disconnected":
                if up && !down { flips.append((s.ts, true, nil)) }
                down = true
            case "failed":
                // A failure it comes back from (an ICE restart) is a drop
                // with its error; one it never comes back from is its end.
                if failed == nil {
                    if up { flips.append((s.ts, true, s.ice ? "ice_failed" : "connection_failed")) }
                    down = down || up
                    failed = (s.ts, s.ice)
                }
            case "closed":
                closedState = closedState ?? s.ts
            default: break
            }
        }
        // A last state without a readable time still says how it ended.
        let untimedFailed = states.last.map { $0.ts == nil && $0.state == "failed" } ?? false
        var outcome = Outcome.ended
        var terminal = end
        if !c.carriedMedia && ParticipantAssembler.neverConnected(r.meta, sampled: ParticipantAssembler.sampled(c)) {
            // Failed or not, a connection that never came up never started the call.
            outcome = .setupFailed
            terminal = r.meta.loggedStates.last { $0.ts != nil }?.ts ?? end
        } else if let failed {
            outcome = .failed(failed.ice ? "ice_failed" : "connection_failed")
            terminal = failed.ts
        } else if untimedFailed {
            outcome = .failed(states.last!.ice ? "ice_failed" : "connection_failed")
        } else if let closed = r.meta.closedAt ?? closedState {
            outcome = .closed
            terminal = closed
        } else if down {
            outcome = .dropped
        }
        terminal = max(terminal, start)
        return Span(index: index, start: start, terminal: terminal, outcome: outcome, flips: flips)
    }

    /// Where an event goes among those of one millisecond. A sample's own
    /// order (webrtc-import.md: the quality report first, then its track
    /// events) holds also when a reconnect falls on it: the join or
    /// reconnect, the report, the tracks taken up again, the sample's
    /// track events, then a drop or a leave.
    enum Rank: Int {
        case arrival, report, resumed, piece, departure
    }

    /// The engine: that of the connection that moved the most media; the
    /// dump's `rtcStatsSFUP2P` constraint where it has one, else the
    /// project's rule (Docs/import.md): a far end running ICE lite, or
    /// offering slots for more senders than one peer has, is an SFU; else
    /// a connection that sends and receives what one peer sends is direct:
    /// at most one audio and one video stream, or, where the far end's
    /// description offers one peer's slots, its camera and screen too (two
    /// video streams); one that receives more is an SFU's.
    func engine(_ results: [ConnectionResult], _ counted: [Int]) -> String {
        guard let busiest = counted.max(by: { results[$0].converter.mediaBytes < results[$1].converter.mediaBytes }) else { return "sfu" }
        let r = results[busiest]
        if let p2p = r.meta.p2p { return p2p ? "p2p" : "sfu" }
        let sdp = r.meta.remoteDescription
        if let sdp, sdp.iceLite || sdp.manySenders { return "sfu" }
        let c = r.converter
        let streams = c.receivedAudioStreams.count + c.receivedVideoStreams.count
        // A peer that added its screen to the call (a second video section)
        // sends two video streams; without its description, two video
        // streams may as well be two people's.
        let videos = sdp == nil ? 1 : 2
        let direct = c.sentMedia && streams >= 1 && c.receivedAudioStreams.count <= 1 && c.receivedVideoStreams.count <= videos
        return direct ? "p2p" : "sfu"
    }

    func joinPayload(_ engine: String) -> String {
        var p: [UInt8] = Array(",\"engine\":\"\(engine)\"".utf8)
        func field(_ name: String, _ value: String?) {
            guard let value else { return }
            p += Array(",\"\(name)\":".utf8)
            ConnectionConverter.appendString(value, to: &p)
        }
        field("title", title)
        field("platform", client?.platform)
        field("osVersion", client?.osVersion)
        field("device", client?.device)
        return String(decoding: p, as: UTF8.self) + "}\n"
    }

    /// `{"ts":<ts>,"event":"` — digits written in place, no String.
    static func appendHead(_ ts: Int64, _ out: inout [UInt8]) {
        out += ParticipantAssembler.tsKey
        var v = ts.magnitude
        if ts < 0 { out.append(UInt8(ascii: "-")) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[19 - n] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                n += 1
            } while v > 0
            out.append(contentsOf: d[(20 - n)...])
        }
        out += ParticipantAssembler.eventKey
    }

    static let tsKey: [UInt8] = Array("{\"ts\":".utf8)
    static let eventKey: [UInt8] = Array(",\"event\":\"".utf8)

    /// `","meeting":…,"uid":…`: what follows every event's name.
    func envelopeBytes() -> [UInt8] {
        var line: [UInt8] = Array("\",\"meeting\":".utf8)
        ConnectionConverter.appendString(meeting, to: &line)
        line += Array(",\"uid\":".utf8)
        ConnectionConverter.appendString(uid, to: &line)
        return line
    }
}

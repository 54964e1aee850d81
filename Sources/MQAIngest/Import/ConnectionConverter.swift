import MQABase
import MQAModel
import MQAStore

/// Turns one peer connection's samples, in time order, into event-log
/// lines (Docs/import.md, "What becomes what"). Fed one sample
/// at a time, so a long connection costs only its few counters and its
/// output lines, never its samples.
struct ConnectionConverter {
    let connection: String
    /// `{"ts":` is written per event; this is what follows the event name.
    private let envelopeTail: [UInt8]
    private(set) var out: [UInt8] = []
    private(set) var events = 0
    private(set) var samples = 0
    private(set) var hasStandardStats = false
    private(set) var hasLegacyStats = false
    private var lastTs: Int64 = 0
    private var previousStatsTime: Fixed?
    /// Last known counters of each local inbound-rtp report, kept while the
    /// report is gone so that a returning report counts from them.
    private var counters: [String: (lost: Fixed, received: Fixed, bytes: Fixed)] = [:]
    private var tracks: [String: Track] = [:]
    private var trackOrder: [String] = []

    struct Track {
        var publisher: String
        var subscribed = false
        var shownFrame = false
        var stalled = false
        var samplesWithoutFrame = 0
        var lastFrames: Fixed?
    }

    init(meeting: String, uid: String, connection: String) {
        self.connection = connection
        var tail: [UInt8] = Array(",\"meeting\":".utf8)
        ConnectionConverter.appendString(meeting, to: &tail)
        tail += Array(",\"uid\":".utf8)
        ConnectionConverter.appendString(uid, to: &tail)
        envelopeTail = tail
    }

    /// Converts the next sample (its time must not be before the last one's).
    mutating func feed(_ sample: StatsSample) {
        let ts = sample.ts
        if samples == 0 { begin(ts, "meeting_join"); text(",\"engine\":\"sfu\"}\n") }
        samples += 1
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

        // Counters, loss, bitrate, jitter over the local inbound-rtp reports.
        var lost = Fixed.zero
        var received = Fixed.zero
        var bytes = Fixed.zero
        var jitter: Int64? = nil
        for (id, r) in sample.reports {
            switch r.category {
            case .inbound, .remoteInbound, .candidatePair: hasStandardStats = true
            case .legacy: hasLegacyStats = true
            default: break
            }
            guard r.isLocalInbound else { continue }
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
            if dReceived.isPositive && r.isKind("audio"), let j = r.number(.jitter) {
                jitter = max(jitter ?? 0, j.millisecondsHalfUp)
            }
        }
        var lossHundredths: Int128 = 0
        let expected = received.raw &+? lost.raw
        if expected > 0 && lost.raw > 0 {
            lossHundredths = min(10_000, Fixed.floorDiv((20_000 &*? lost.raw) &+? expected, 2 &*? expected))
        }
        var bitrate: Int128 = 0
        if let previous = previousStatsTime {
            let interval = sample.statsTime.raw &-? previous.raw
            if interval > 0 {
                let b = max(0, bytes.raw)
                // kbps = bytes·8 / ms; both in 10⁻¹⁸ units, which cancel.
                bitrate = Fixed.floorDiv((16 &*? b) &+? interval, 2 &*? interval)
            }
        }
        previousStatsTime = sample.statsTime
        let rtt = ConnectionConverter.roundTrip(sample, report)

        begin(ts, "quality_report")
        text(",\"loss\":")
        ConnectionConverter.appendHundredths(lossHundredths, to: &out)
        // Absurd counters can make numbers no 64-bit decimal holds exactly
        // (18 digits); the validator would reject the whole report, so
        // they are capped there (found by the rtcstats fuzz target).
        let cap: Int128 = 999_999_999_999_999_999
        text(",\"rtt\":\(min(Int128(rtt), cap)),\"jitter\":\(min(Int128(jitter ?? 0), cap)),\"bitrate\":\(min(bitrate, cap)),\"mos\":null}\n")

        // Video tracks present in this sample, first report per track.
        var present: [String: (publisher: String, frames: Fixed?)] = [:]
        for (id, r) in sample.reports where r.isLocalInbound && r.isKind("video") {
            let ssrc = ConnectionConverter.ssrcText(r[.ssrc])
            var key = r.text(.trackIdentifier)
            if key == nil, let ref = r.text(.trackId) { key = report(ref)?.text(.trackIdentifier) }
            let track = key ?? ssrc ?? id
            guard present[track] == nil else { continue }
            let publisher = "remote-" + (ssrc ?? id)
            present[track] = (publisher, r.number(.framesDecoded))
            if tracks[track] == nil {
                tracks[track] = Track(publisher: publisher)
                trackOrder.append(track)
            }
        }
        for key in trackOrder where tracks[key]!.subscribed && present[key] == nil {
            tracks[key]!.subscribed = false
            begin(ts, "stream_unsubscribe")
            trackFields(tracks[key]!.publisher, key)
            text("}\n")
        }
        for key in trackOrder {
            guard let now = present[key] else { continue }
            var t = tracks[key]!
            t.publisher = now.publisher
            if !t.subscribed {
                t = Track(publisher: now.publisher, subscribed: true, lastFrames: t.lastFrames)
                begin(ts, "stream_subscribe")
                trackFields(t.publisher, key)
                text(",\"kind\":\"camera\"}\n")
            }
            var newFrame = false
            if let frames = now.frames {
                // A counter that went backwards restarted: any frame is new.
                if let last = t.lastFrames, frames >= last { newFrame = frames > last } else { newFrame = frames.isPositive }
                t.lastFrames = frames
            }
            if newFrame {
                t.samplesWithoutFrame = 0
                if !t.shownFrame || t.stalled {
                    t.shownFrame = true
                    t.stalled = false
                    status(ts, t.publisher, key, timedOut: false)
                }
            } else if t.shownFrame && !t.stalled {
                t.samplesWithoutFrame += 1
                if t.samplesWithoutFrame >= 2 {
                    t.stalled = true
                    status(ts, t.publisher, key, timedOut: true)
                }
            }
            tracks[key] = t
        }
    }

    /// Ends the connection: `meeting_leave` at the last sample.
    mutating func finish() {
        guard samples > 0 else { return }
        begin(lastTs, "meeting_leave")
        text("}\n")
    }

    /// The rtt rule: the selected candidate pair's current RTT, else the
    /// mean remote-inbound RTT; ms, at least 1 when measured.
    static func roundTrip(_ sample: StatsSample, _ report: (String) -> StatsReport?) -> Int64 {
        var named: [String] = []
        for (_, r) in sample.reports where r.category == .transport {
            if let id = r.text(.selectedCandidatePairId) { named.append(id) }
        }
        for rule in 0..<3 {
            var best: (rtt: Fixed, traffic: Fixed)? = nil
            for (id, r) in sample.reports where r.category == .candidatePair {
                switch rule {
                case 0: guard named.contains(id) else { continue }
                case 1: guard r.bool(.selected) == true else { continue }
                default: guard r.bool(.nominated) == true && r.text(.state) == "succeeded" else { continue }
                }
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

    // MARK: Writing lines

    private mutating func begin(_ ts: Int64, _ event: StaticString) {
        events += 1
        text("{\"ts\":\(ts),\"event\":\"")
        out.append(contentsOf: UnsafeBufferPointer(start: event.utf8Start, count: event.utf8CodeUnitCount))
        out.append(UInt8(ascii: "\""))
        out += envelopeTail
    }

    private mutating func trackFields(_ publisher: String, _ track: String) {
        text(",\"publisher\":")
        ConnectionConverter.appendString(publisher, to: &out)
        text(",\"track\":")
        ConnectionConverter.appendString(track, to: &out)
    }

    private mutating func status(_ ts: Int64, _ publisher: String, _ track: String, timedOut: Bool) {
        begin(ts, "receive_stream_status")
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

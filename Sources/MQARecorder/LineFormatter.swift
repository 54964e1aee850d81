/// How the SDK expresses packet loss in its quality report.
public enum LossUnit: Sendable {
    /// A fraction, 0.0–1.0 (0.075 = 7.5 %): multiplied by 100 when written.
    case fraction
    /// Already percent, 0–100: written as is.
    case percent
}

/// Turns records into NDJSON lines on the writer thread. Every value is made
/// valid here rather than trusted: strings are escaped and capped, numbers
/// clamped to the format's ranges, so that no line the recorder writes can
/// be rejected by ingest.
struct LineFormatter {
    /// The format's limit for `meeting` and `uid`, in Unicode scalars.
    static let envelopeLimit = 256
    /// Cap on any payload string: keeps the longest possible line (a
    /// speakers list at its cap) far below ingest's 1 MiB line limit.
    static let payloadLimit = 1024
    /// The format's limit for the client fields of 1.2 (`osVersion`, …,
    /// `detail`), in Unicode scalars.
    static let clientFieldLimit = 256
    /// Speakers beyond this many are left out of `active_speakers_change`.
    static let speakersLimit = 256
    /// Upper clamp for rtt/jitter/bitrate; keeps the fixed-point formatting in Int64.
    static let largest = 1e12

    var lossUnit: LossUnit

    /// Appends one line, newline included.
    func append(_ r: Record, meeting: String, uid: String, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"ts":"#.utf8)
        Self.integer(r.ts, to: &out)
        out.append(contentsOf: #","event":""#.utf8)
        out.append(contentsOf: r.event.name.utf8)
        out.append(contentsOf: #"","meeting":"#.utf8)
        Self.string(meeting, limit: Self.envelopeLimit, to: &out)
        out.append(contentsOf: #","uid":"#.utf8)
        Self.string(uid, limit: Self.envelopeLimit, to: &out)
        let optional = r.flags & Record.hasOptional != 0
        switch r.event {
        case .meetingJoin:
            Self.raw("engine", (MeetingEngine(rawValue: r.code) ?? .sfu).name, &out)
            if optional { Self.text("title", r.s0, &out) }
            if r.code2 > 0, let platform = ClientPlatform(rawValue: r.code2 - 1) { Self.raw("platform", platform.name, &out) }
            if r.list.count == 4 {
                Self.clientText("osVersion", r.list[0], &out)
                Self.clientText("sdkVersion", r.list[1], &out)
                Self.clientText("appVersion", r.list[2], &out)
                Self.clientText("device", r.list[3], &out)
            }
            if r.code3 > 0, let net = NetworkType(rawValue: r.code3 - 1) { Self.raw("netType", net.name, &out) }
        case .meetingLeave, .reconnect, .shareBroadcastStart, .shareBroadcastStop:
            break
        case .disconnect:
            Self.text("reason", r.s0, &out)
            if optional { Self.text("error", r.s1, &out) }
        case .qualityReport:
            appendReport(r, to: &out)
        case .connectionQualityChange:
            Self.text("tier", r.s0, &out)
        case .activeSpeakersChange:
            out.append(contentsOf: #","speakers":["#.utf8)
            for (i, speaker) in r.list.lazy.filter({ !$0.isEmpty }).prefix(Self.speakersLimit).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.string(speaker, limit: Self.envelopeLimit, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .streamSubscribe:
            Self.uid("publisher", r.s0, &out)
            Self.text("track", r.s1, &out)
            Self.raw("kind", (StreamKind(rawValue: r.code) ?? .camera).name, &out)
        case .streamUnsubscribe:
            Self.uid("publisher", r.s0, &out)
            Self.text("track", r.s1, &out)
        case .receiveStreamStatus:
            Self.uid("publisher", r.s0, &out)
            Self.text("track", r.s1, &out)
            Self.bool("timedOut", r.flags & Record.flagA != 0, &out)
        case .userEnter, .userLeave:
            Self.uid("target", r.s0, &out)
        case .memberMediaState:
            Self.uid("target", r.s0, &out)
            Self.raw("media", (MemberMedia(rawValue: r.code) ?? .mic).name, &out)
            Self.bool("on", r.flags & Record.flagA != 0, &out)
            Self.bool("byAdmin", r.flags & Record.flagB != 0, &out)
            if optional { Self.uid("opUid", r.s1, &out) }
        case .roomTitleChange:
            Self.text("title", r.s0, &out)
            Self.text("previousTitle", r.s1, &out)
        case .roomShareStart, .roomShareStop:
            Self.uid("publisher", r.s0, &out)
        case .audioRouteChange:
            Self.text("route", r.s0, &out)
            Self.text("reason", r.s1, &out)
        case .audioInterruption:
            Self.raw("phase", (AudioInterruptionPhase(rawValue: r.code) ?? .began).name, &out)
        case .deviceChange:
            Self.raw("kind", (DeviceKind(rawValue: r.code) ?? .camera).name, &out)
            Self.raw("change", (DeviceChange(rawValue: r.code2) ?? .added).name, &out)
            if optional { Self.text("device", r.s0, &out) }
        case .subMeetingMove:
            // Cut like an envelope id: the target becomes the next lines' `meeting`.
            out.append(contentsOf: #","target":"#.utf8)
            Self.string(r.s0, limit: Self.envelopeLimit, to: &out)
            if optional { Self.text("reason", r.s1, &out) }
        case .userHandup:
            Self.raw("step", (HandupStep(rawValue: r.code) ?? .request).name, &out)
        case .networkChange:
            Self.raw("netType", (NetworkType(rawValue: r.code) ?? .other).name, &out)
            if optional { Self.clientText("detail", r.s0, &out) }
        case .recorderDropped:
            out.append(contentsOf: #","dropped":"#.utf8)
            Self.integer(Int64(r.n0), to: &out)
            out.append(contentsOf: #","totalDropped":"#.utf8)
            Self.integer(Int64(r.n1), to: &out)
        }
        out.append(contentsOf: "}\n".utf8)
    }

    /// The SDK's numbers made valid: loss to percent in 0–100, negative or
    /// non-finite rtt/jitter/bitrate to 0, and a MOS that is 0, not finite or
    /// outside 1–5 to `null` (not available). Rounded to fixed decimals, so
    /// a unit conversion never writes `7.000000000000001`.
    private func appendReport(_ r: Record, to out: inout [UInt8]) {
        var loss = r.n0.isFinite ? max(0, r.n0) : 0
        if lossUnit == .fraction { loss *= 100 }
        out.append(contentsOf: #","loss":"#.utf8)
        Self.decimal(min(loss, 100), places: 4, to: &out)
        func measure(_ key: String, _ value: Double) {
            out.append(contentsOf: key.utf8)
            Self.decimal(value.isFinite ? min(max(0, value), Self.largest) : 0, places: 3, to: &out)
        }
        measure(#","rtt":"#, r.n1)
        measure(#","jitter":"#, r.n2)
        measure(#","bitrate":"#, r.n3)
        out.append(contentsOf: #","mos":"#.utf8)
        let mos = r.n4.isFinite ? (r.n4 * 100).rounded() / 100 : 0
        if mos >= 1 && mos <= 5 {
            Self.decimal(mos, places: 2, to: &out)
        } else {
            out.append(contentsOf: "null".utf8)
        }
    }

    // MARK: Pieces

    private static func raw(_ key: StaticString, _ value: String, _ out: inout [UInt8]) {
        out.append(contentsOf: #",""#.utf8)
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(contentsOf: #"":""#.utf8)
        out.append(contentsOf: value.utf8)
        out.append(UInt8(ascii: "\""))
    }

    private static func text(_ key: StaticString, _ value: String, _ out: inout [UInt8]) {
        out.append(contentsOf: #",""#.utf8)
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(contentsOf: #"":"#.utf8)
        string(value, limit: payloadLimit, to: &out)
    }

    /// A uid in the payload (`publisher`, `target`, `opUid`): cut like the
    /// envelope's. The recorder drops a call whose uid is empty.
    private static func uid(_ key: StaticString, _ value: String, _ out: inout [UInt8]) {
        out.append(contentsOf: #",""#.utf8)
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(contentsOf: #"":"#.utf8)
        string(value, limit: envelopeLimit, to: &out)
    }

    /// A 1.2 client field: 1–256 characters, so an empty value is left out.
    private static func clientText(_ key: StaticString, _ value: String, _ out: inout [UInt8]) {
        guard !value.isEmpty else { return }
        out.append(contentsOf: #",""#.utf8)
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(contentsOf: #"":"#.utf8)
        string(value, limit: clientFieldLimit, to: &out)
    }

    private static func bool(_ key: StaticString, _ value: Bool, _ out: inout [UInt8]) {
        out.append(contentsOf: #",""#.utf8)
        out.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        out.append(contentsOf: value ? #"":true"#.utf8 : #"":false"#.utf8)
    }

    /// A JSON string of at most `limit` Unicode scalars (cut at a scalar,
    /// never inside one). Swift strings are valid Unicode, so only quotes,
    /// backslashes and control characters need escapes.
    static func string(_ s: String, limit: Int, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var scalars = 0
        for b in s.utf8 {
            if b & 0xC0 != 0x80 {
                scalars += 1
                if scalars > limit { break }
            }
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hexDigit(b >> 4))
                out.append(hexDigit(b & 0xF))
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x41 + v - 10 }

    static func integer(_ v: Int64, to out: inout [UInt8]) {
        if v < 0 {
            out.append(UInt8(ascii: "-"))
            unsigned(v.magnitude, to: &out)
        } else {
            unsigned(UInt64(v), to: &out)
        }
    }

    private static func unsigned(_ v: UInt64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var n = 0
            var rest = v
            repeat {
                digits[n] = UInt8(truncatingIfNeeded: rest % 10) + 0x30
                rest /= 10
                n += 1
            } while rest > 0
            while n > 0 {
                n -= 1
                out.append(digits[n])
            }
        }
    }

    /// A non-negative value with at most `places` decimals, trailing zeros
    /// dropped (`7.5`, `48`, `0.4`).
    static func decimal(_ v: Double, places: Int, to out: inout [UInt8]) {
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let n = Int64((v * Double(scale)).rounded())
        unsigned(UInt64(n / scale), to: &out)
        var fraction = n % scale
        guard fraction != 0 else { return }
        var width = places
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        out.append(UInt8(ascii: "."))
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(truncatingIfNeeded: (fraction / divisor) % 10) + 0x30)
            divisor /= 10
        }
    }
}

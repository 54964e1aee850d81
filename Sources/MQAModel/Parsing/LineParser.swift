#if canImport(Glibc)
import Glibc
#endif
import MQABase

/// What became of one line.
public enum LineOutcome: Equatable, Sendable {
    /// A known event; its fields are in the parser.
    case event
    /// A valid line whose `event` this version does not know: counted, not stored.
    case ignored
    /// A bad line, with a reason that names the field.
    case rejected(String)
}

/// Validates one NDJSON line against the event-log contract and exposes its
/// fields without building per-line objects: envelope strings as reusable
/// byte buffers, a quality report's values as exact decimals. Other events'
/// payloads are built on request (`payload(in:)`), as they are rare.
///
/// The parser keeps no pointer into a line: each call that reads one is
/// lent it (the field positions of the last line are offsets into it), so
/// the line's lifetime is the caller's, visibly. Not copyable: it owns the
/// scanner's field memory, which a copy would share.
public struct LineParser: ~Copyable {
    /// Lines longer than this are rejected (the spec's 1 MiB).
    public static let maxLineBytes = 1 << 20
    /// 2000-01-01T00:00:00Z: earlier times are rejected.
    public static let earliestTs: Int64 = 946_684_800_000

    /// Times more than a day after this are rejected.
    public var nowMs: Int64

    /// Whether `ts` is a time an event may have, given the clock `nowMs`:
    /// from 2000-01-01 to a day past it. The stats importers hold sample
    /// times to the same range.
    public static func isEventTime(_ ts: Int64, nowMs: Int64) -> Bool {
        ts >= earliestTs && ts <= nowMs &+ 86_400_000
    }

    public private(set) var ts: Int64 = 0
    public private(set) var kind: EventKind = .meetingJoin
    /// The decoded `meeting` and `uid` (UTF-8), valid after `.event`/`.ignored`.
    public private(set) var meeting: [UInt8] = []
    public private(set) var uid: [UInt8] = []
    /// Changes whenever `meeting` and `uid` are decoded anew; stays when a
    /// line's ids are the bytes already held (they are not decoded again).
    /// Equal numbers mean the same client.
    public private(set) var clientGeneration = 0
    /// `meeting` and `uid` hold valid values (the last line's check of
    /// them passed).
    private var clientValid = false
    /// The last decoded `meeting` and `uid` as they were written when that
    /// had escapes (`\u00fc`, as loggers that write ASCII only do), else
    /// empty: a line with the same escaped text has the same ids.
    private var meetingEscaped: [UInt8] = []
    private var uidEscaped: [UInt8] = []
    /// A quality report's values, valid when `kind == .qualityReport`.
    public private(set) var loss = DecimalNumber(mantissa: 0, exponent: 0)
    public private(set) var rtt = DecimalNumber(mantissa: 0, exponent: 0)
    public private(set) var jitter = DecimalNumber(mantissa: 0, exponent: 0)
    public private(set) var bitrate = DecimalNumber(mantissa: 0, exponent: 0)
    /// `DecimalNumber.null` for a logged `null`.
    public private(set) var mos = DecimalNumber(mantissa: 0, exponent: 0)

    private var scanner = JSONScanner()
    /// The event table as the parser walks it, held here so the hot loop
    /// reads no global.
    let plan = ParsePlan.shared
    private var scratch: [UInt8] = []
    /// The date and hour of the last string time (`RFC3339.HourCache`).
    private var hourCache = RFC3339.HourCache()
    /// Where the last line parsed was and how long, so that a debug build
    /// can check a payload is read from that same line. An address as a
    /// number, never read through.
    private var lastLine = (address: 0, count: 0)

    public init(nowMs: Int64) { self.nowMs = nowMs }

    /// Parses and validates `line` (without its newline).
    public mutating func parse(_ line: UnsafeBufferPointer<UInt8>) -> LineOutcome {
        if line.count > LineParser.maxLineBytes {
            return .rejected("line longer than 1 MiB (\(line.count) bytes)")
        }
        lastLine = (Int(bitPattern: line.baseAddress), line.count)
        do {
            try scanner.scan(line)
        } catch {
            return .rejected(error.message + " at column \(error.column)")
        }
        if let reason = validateEnvelope(line) { return .rejected(reason) }
        guard let known = eventKind(line) else { return .ignored }
        kind = known
        if let reason = validatePayload(line) { return .rejected(reason) }
        return .event
    }

    /// Traps in a debug build unless `line` is the one last parsed: the
    /// scanned fields are positions in it.
    @inline(__always)
    private func assertLastLine(_ line: UnsafeBufferPointer<UInt8>) {
        assert(Int(bitPattern: line.baseAddress) == lastLine.address && line.count == lastLine.count,
               "a payload read from a line other than the one last parsed")
    }

    func field(_ key: FieldKey) -> FieldValue { scanner[slot: key.rawValue] }

    // MARK: Envelope

    private mutating func validateEnvelope(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        let t = field(.ts)
        switch t.type {
        case .absent: return "ts: missing"
        case .number:
            if !t.number.isBinary, let v = LineParser.integer(t.number) {
                ts = v  // the common case: an exact whole number that fits
            } else {
                // Read the text exactly: a fraction is "not an integer", a
                // whole number beyond Int64 is a time far out of range.
                let text = UnsafeBufferPointer(rebasing: line[t.start..<t.end])
                let exact = NumberText(text)
                if !exact.isIntegral { return "ts: must be an integer number of ms since the epoch or an RFC 3339 string" }
                let side = exact.negative ? "before 2000-01-01" : "more than a day in the future"
                return "ts: \(LineParser.clip(Array(text))) is out of range (\(side))"
            }
        case .string:
            // A time is ASCII, so one with escapes is rare: the others are
            // read where they are, with no copy (the message quotes a copy).
            let parsed: Int64?
            if t.hasEscapes {
                LineParser.decode(line, t, into: &scratch)
                parsed = scratch.withUnsafeBufferPointer { RFC3339.milliseconds($0) }
            } else {
                parsed = RFC3339.milliseconds(UnsafeBufferPointer(rebasing: line[t.start..<t.end]), cache: &hourCache)
            }
            guard let parsed else {
                if !t.hasEscapes { LineParser.decode(line, t, into: &scratch) }
                return "ts: not a valid RFC 3339 time: \"\(LineParser.clip(scratch))\""
            }
            ts = parsed
        default: return "ts: must be an integer or an RFC 3339 string, not \(LineParser.typeName(t.type))"
        }
        if ts < LineParser.earliestTs { return "ts: \(ts) is before 2000-01-01" }
        if ts > nowMs + 86_400_000 { return "ts: \(ts) is more than a day in the future" }
        let e = field(.event)
        switch e.type {
        case .absent: return "event: missing"
        case .string:
            if e.end == e.start { return "event: empty" }
            // Like meeting and uid, at most 256 characters (escapes decoded).
            if e.end - e.start > 256 {
                var decoded: [UInt8] = []
                LineParser.decode(line, e, into: &decoded)
                let characters = decoded.reduce(0) { $0 + ($1 & 0xC0 != 0x80 ? 1 : 0) }
                if characters > 256 { return "event: \(characters) characters, at most 256 allowed" }
            }
        default: return "event: must be a string, not \(LineParser.typeName(e.type))"
        }
        // A log is mostly one client's lines: when meeting and uid are the
        // bytes already checked and decoded, nothing is done again (this
        // was ~15 % of parsing a line, with the caller's comparison).
        let (m, u) = (field(.meeting), field(.uid))
        // Each buffer passed as it is: a conditional expression picking one
        // made a copy of the array reference, retained and released a line.
        if clientValid && (m.hasEscapes ? unchanged(line, m, meetingEscaped) : unchanged(line, m, meeting))
            && (u.hasEscapes ? unchanged(line, u, uidEscaped) : unchanged(line, u, uid))
        {
            return nil
        }
        clientGeneration &+= 1
        clientValid = false
        LineParser.keepEscaped(line, m, in: &meetingEscaped)
        LineParser.keepEscaped(line, u, in: &uidEscaped)
        // Swap the buffers out rather than copy them: a copy would defeat
        // their reuse and allocate on every line.
        var buffer: [UInt8] = []
        swap(&buffer, &meeting)
        defer { swap(&buffer, &meeting) }
        if let reason = envelopeString(line, .meeting, into: &buffer) { return reason }
        var uidBuffer: [UInt8] = []
        swap(&uidBuffer, &uid)
        defer { swap(&uidBuffer, &uid) }
        if let reason = envelopeString(line, .uid, into: &uidBuffer) { return reason }
        clientValid = true
        return nil
    }

    /// Whether string field `f` is written exactly as `bytes`. Lines whose
    /// ids had escapes were decoded anew on every line (a third of the
    /// envelope's cost on a corpus where 4 in 10 clients escape).
    @inline(__always)
    private func unchanged(_ line: UnsafeBufferPointer<UInt8>, _ f: FieldValue, _ bytes: [UInt8]) -> Bool {
        guard f.type == .string, f.end - f.start == bytes.count, !bytes.isEmpty, let base = line.baseAddress else {
            return false
        }
        return bytes.withUnsafeBytes { memcmp(base + f.start, $0.baseAddress!, bytes.count) == 0 }
    }

    /// Keeps the text of string field `f` as written when it has escapes
    /// (for `unchanged`), else empties `out`.
    private static func keepEscaped(_ line: UnsafeBufferPointer<UInt8>, _ f: FieldValue, in out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        if f.type == .string && f.hasEscapes { out.append(contentsOf: line[f.start..<f.end]) }
    }

    private func envelopeString(_ line: UnsafeBufferPointer<UInt8>, _ key: FieldKey, into out: inout [UInt8]) -> String? {
        let f = field(key)
        switch f.type {
        case .absent: return "\(key.name): missing"
        case .string: break
        default: return "\(key.name): must be a string, not \(LineParser.typeName(f.type))"
        }
        LineParser.decode(line, f, into: &out)
        var characters = 0
        for b in out where b & 0xC0 != 0x80 { characters += 1 }
        if characters == 0 { return "\(key.name): empty" }
        if characters > 256 { return "\(key.name): \(characters) characters, at most 256 allowed" }
        return nil
    }

    /// Whether the last line parsed (lent again as `line`) names the event
    /// `name`, written without escapes: for the few `event`s outside the
    /// contract that mqa reads itself, looked at only on ignored lines.
    public func eventIs(_ name: [UInt8], in line: UnsafeBufferPointer<UInt8>) -> Bool {
        assertLastLine(line)
        let e = field(.event)
        guard e.type == .string, !e.hasEscapes, e.end - e.start == name.count else { return false }
        return line[e.start..<e.end].elementsEqual(name)
    }

    private func eventKind(_ line: UnsafeBufferPointer<UInt8>) -> EventKind? {
        let e = field(.event)
        let name = UnsafeBufferPointer(rebasing: line[e.start..<e.end])
        if e.hasEscapes {
            var decoded: [UInt8] = []
            JSONScanner.unescape(name, into: &decoded)
            return decoded.withUnsafeBufferPointer { plan.kind(named: $0) }
        }
        return plan.kind(named: name)
    }

    // MARK: Payload

    /// Checks the payload against the kind's descriptor: each field present
    /// unless optional, of its type, and for a closed list one of its values.
    private mutating func validatePayload(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        if kind == .qualityReport { return validateReport(line) }
        return plan.withLayout(of: kind) { slots, tags in
            for i in 0..<slots.count {
                let v = scanner[slot: slots[i]]
                let expected: JSONType
                switch tags[i] {
                case 0, 1, 5: expected = .string
                case 2: expected = .bool
                case 3: expected = .array
                default: return "\(field(i).name): numbers are only defined for quality_report"  // no such row
                }
                if v.type != expected {
                    let field = field(i)
                    if field.optional && (v.type == .absent || v.type == .null) { continue }
                    if v.type == .absent { return "\(field.name): missing" }
                    let what = expected == .string ? "a string" : expected == .bool ? "true or false" : "an array of uid strings"
                    return "\(field.name): must be \(what), not \(LineParser.typeName(v.type))"
                }
                if tags[i] == 1, let reason = oneOf(line, v, field(i)) { return reason }
                if tags[i] == 5, let reason = textLength(line, v, i) { return reason }
                if tags[i] == 3 {
                    var ok = true
                    var problem: String? = nil
                    var n = 0
                    // Decoded into only for an escaped uid: empty, it holds no memory.
                    var decoded: [UInt8] = []
                    forEachArrayElement(line, v) { element in
                        n += 1
                        if element.type != .string {
                            ok = false
                        } else if UInt(bitPattern: element.end - element.start &- 1) >= 256, problem == nil,
                                  let p = LineParser.uidLength(line, element, scratch: &decoded) {
                            // (1 to 256 bytes are a uid: only 0 or more are counted.)
                            problem = "uid \(n): \(p)"
                        }
                    }
                    if !ok { return "\(field(i).name): must be an array of uid strings" }
                    if let problem { return "\(field(i).name): \(problem)" }
                }
            }
            return nil
        }
    }

    /// The last line's kind's field `i`, for messages and closed lists.
    private func field(_ i: Int) -> PayloadField { plan.descriptors[Int(kind.rawValue)]!.fields[i] }

    /// A string of 1–256 characters (a payload uid, a format 1.2 client
    /// field), counted as the envelope's ids are: code points after
    /// escapes are decoded. Up to 256 bytes as written is within bounds
    /// whatever they hold, so most values are checked by their length
    /// alone; nothing is allocated either way (a longer escaped value is
    /// decoded into the reused scratch buffer).
    private mutating func textLength(_ line: UnsafeBufferPointer<UInt8>, _ v: FieldValue, _ i: Int) -> String? {
        LineParser.uidLength(line, v, scratch: &scratch).map { "\(field(i).name): \($0)" }
    }

    /// What is wrong with the length of string `v` (`empty`, `300
    /// characters, at most 256 allowed`), or nil; an escaped value is
    /// decoded into `scratch`.
    private static func uidLength(_ line: UnsafeBufferPointer<UInt8>, _ v: FieldValue, scratch: inout [UInt8]) -> String? {
        // Every character takes a byte at least, escaped or not, and an
        // escape is one at least: 1 to 256 bytes as written are 1 to 256
        // characters, whatever they hold, with no decoding.
        let bytes = v.end - v.start
        if bytes > 0 && bytes <= 256 { return nil }
        var characters = 0
        if v.hasEscapes {
            LineParser.decode(line, v, into: &scratch)
            for b in scratch where b & 0xC0 != 0x80 { characters += 1 }
        } else {
            for p in v.start..<v.end where line[p] & 0xC0 != 0x80 { characters += 1 }
        }
        if characters == 0 { return "empty" }
        if characters > 256 { return "\(characters) characters, at most 256 allowed" }
        return nil
    }

    /// A closed-list field: its decoded bytes must equal one allowed value.
    private mutating func oneOf(_ line: UnsafeBufferPointer<UInt8>, _ v: FieldValue, _ field: PayloadField) -> String? {
        var matched = false
        if v.hasEscapes {
            LineParser.decode(line, v, into: &scratch)
            matched = field.allowedBytes.contains(scratch)
        } else {
            let raw = UnsafeBufferPointer(rebasing: line[v.start..<v.end])
            for allowed in field.allowedBytes where allowed.count == raw.count {
                if allowed.withUnsafeBufferPointer({ $0.elementsEqual(raw) }) { matched = true; break }
            }
            if !matched { LineParser.decode(line, v, into: &scratch) }
        }
        if matched { return nil }
        let list = field.allowedBytes.map { "\"" + String(decoding: $0, as: UTF8.self) + "\"" }.joined(separator: ", ")
        return "\(field.name): \"\(LineParser.clip(scratch))\" is not one of " + list
    }

    /// Reports are checked on their exact decimal text: ranges first (a
    /// value just outside is out, however close), then whether the store
    /// can keep the number exactly.
    private mutating func validateReport(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        /// `lo...hi` (no upper bound when `hi` is nil); `zeroToo` admits 0 besides.
        func number(_ f: FieldValue, _ key: FieldKey, _ out: inout DecimalNumber, _ lo: Int64, _ hi: Int64?, zeroToo: Bool = false,
                    _ rule: String) -> String? {
            switch f.type {
            case .absent: return "\(key.name): missing"
            case .number: break
            default: return "\(key.name): must be a number, not \(LineParser.typeName(f.type))"
            }
            let text = UnsafeBufferPointer(rebasing: line[f.start..<f.end])
            // A 64-bit decimal compares exactly in integers; only a number
            // beyond one (kept as binary) needs its text read again.
            let n = f.number
            func compare(_ bound: Int64) -> Int {
                n.isBinary ? NumberText(text).compare(toInteger: UInt64(bound)) : LineParser.compare(n, bound)
            }
            let isZero = n.isBinary ? NumberText(text).isZero : n.mantissa == 0
            let inRange = (zeroToo && isZero) || (compare(lo) >= 0 && (hi.map { compare($0) <= 0 } ?? true))
            if !inRange { return "\(key.name): \(LineParser.clip(Array(text))) \(rule)" }
            if let reason = LineParser.storable(key, n, text) { return reason }
            out = LineParser.storedValue(n)
            return nil
        }
        var value = DecimalNumber(mantissa: 0, exponent: 0)
        let keys = plan.reportKeys
        if let e = number(field(keys.loss), keys.loss, &value, 0, 100, "is outside 0–100 (percent)") { return e }
        loss = value
        if let e = number(field(keys.rtt), keys.rtt, &value, 0, nil, "is negative") { return e }
        rtt = value
        if let e = number(field(keys.jitter), keys.jitter, &value, 0, nil, "is negative") { return e }
        jitter = value
        if let e = number(field(keys.bitrate), keys.bitrate, &value, 0, nil, "is negative") { return e }
        bitrate = value
        let m = field(keys.mos)
        if m.type == .null {
            mos = .null
            return nil
        }
        if m.type == .absent { return "mos: missing (use null when not available)" }
        if let e = number(m, keys.mos, &value, 1, 5, zeroToo: true, "is outside 1–5 (0 or null mean not available)") { return e }
        mos = value
        return nil
    }

    /// The sign of `d − bound` for a 64-bit decimal, exactly: the bound is
    /// scaled to `d`'s exponent (or `d` to 0) in integers, and an overflow
    /// means the scaled side is the larger in magnitude.
    static func compare(_ d: DecimalNumber, _ bound: Int64) -> Int {
        let m = d.mantissa
        if m == 0 || bound == 0 || (m < 0) != (bound < 0) {
            return m == bound ? 0 : (m < bound ? -1 : (m > bound ? 1 : 0))  // signs decide
        }
        if d.exponent >= 0 {
            var v = m
            for _ in 0..<Int(d.exponent) {
                let (p, overflow) = v.multipliedReportingOverflow(by: 10)
                if overflow { return m > 0 ? 1 : -1 }
                v = p
            }
            return v == bound ? 0 : (v < bound ? -1 : 1)
        }
        var b = bound
        for _ in 0..<Int(-d.exponent) {
            let (p, overflow) = b.multipliedReportingOverflow(by: 10)
            if overflow { return bound > 0 ? -1 : 1 }
            b = p
        }
        return m == b ? 0 : (m < b ? -1 : 1)
    }

    /// A report value in range is stored, as the spec's list of reasons to
    /// reject a line holds no other: a 64-bit decimal where it fits (up to
    /// 18 significant digits, 19 when under 2^63; exponent within ±30000),
    /// else (`storedValue`) the decimal of the shortest digits of the
    /// scanner's correctly rounded `Double`. Only a value no double holds
    /// is refused.
    static func storable(_ key: FieldKey, _ n: DecimalNumber, _ text: UnsafeBufferPointer<UInt8>) -> String? {
        if n.isBinary {
            return (n.doubleValue ?? 0).isFinite ? nil : "\(key.name): not a finite number"
        }
        // Below 10^19 · 10^288 < Double.greatestFiniteMagnitude: no need
        // to convert (that was 3 % of parsing a report).
        if n.exponent > 288 && !(n.doubleValue ?? 0).isFinite { return "\(key.name): not a finite number" }
        return nil
    }

    /// The value stored for a report field: the decimal as logged, or for
    /// a number of more digits than a decimal holds (kept by the scanner
    /// as its double), the decimal of that double's shortest digits:
    /// `3.600000000000000088817841970012523233890533447265625` is 3.6,
    /// `1e-40000` is 0. Every stored value is then a decimal, compared
    /// exactly as duplicates, so equality stays transitive (a double
    /// beside decimals made 0.1 equal 0.1000000000000000000001 equal
    /// 0.10000000000000001, though 0.1 is not the last), and chunks keep
    /// the layout earlier releases read.
    static func storedValue(_ n: DecimalNumber) -> DecimalNumber {
        guard n.isBinary, let d = n.doubleValue, let shortest = DecimalNumber(shortestDigitsOf: d) else { return n.normalized }
        return shortest.normalized
    }

    /// Visits the elements of an already validated array field.
    /// The elements of an array that the validator found to hold strings
    /// only. Static, on the line's bytes alone: through the parser it
    /// copied the parser (and retained its buffers) per array.
    static func forEachString(in line: UnsafeBufferPointer<UInt8>, _ f: FieldValue, _ body: (FieldValue) -> Void) {
        var p = f.start + 1
        while p < f.end {
            let c = line[p]
            guard c == UInt8(ascii: "\"") else {
                p += 1  // space, ',' or ']'
                continue
            }
            var element = FieldValue()
            element.type = .string
            element.start = p + 1
            p += 1
            while line[p] != UInt8(ascii: "\"") {
                if line[p] == UInt8(ascii: "\\") {
                    element.hasEscapes = true
                    p += 1
                }
                p += 1
            }
            element.end = p
            p += 1
            body(element)
        }
    }

    func forEachArrayElement(_ line: UnsafeBufferPointer<UInt8>, _ f: FieldValue, _ body: (FieldValue) -> Void) {
        let s = UnsafeBufferPointer(rebasing: line[..<f.end])
        var p = f.start + 1
        func space() { while p < s.count, s[p] == 0x20 || s[p] == 0x09 || s[p] == 0x0A || s[p] == 0x0D { p += 1 } }
        space()
        if s[p] == UInt8(ascii: "]") { return }
        while true {
            var element = FieldValue()
            element.start = p
            if s[p] == UInt8(ascii: "\"") {
                element.type = .string
                element.start = p + 1
                element.hasEscapes = (try? scanner.scanString(s, &p)) ?? false
                element.end = p - 1
            } else {
                element.type = .object  // anything but a string: only the type matters
                try? scanner.skipValue(s, &p, depth: 2)
                element.end = p
            }
            body(element)
            space()
            if s[p] == UInt8(ascii: "]") { return }
            p += 1  // ','
            space()
        }
    }

    // MARK: Decoded values

    private static func decode(_ line: UnsafeBufferPointer<UInt8>, _ f: FieldValue, into out: inout [UInt8]) {
        let raw = UnsafeBufferPointer(rebasing: line[f.start..<f.end])
        // The meeting and uid buffers are shared with the batch's client
        // keys, so `removeAll(keepingCapacity:)` reallocates them at their
        // old capacity, which malloc rounds up: line after line they grew
        // without bound (~600 bytes per id after 200k lines, every id of a
        // batch holding one). Start afresh once far above what is needed.
        if out.capacity > 2 * raw.count + 64 { out = [] }
        out.removeAll(keepingCapacity: true)
        if f.hasEscapes {
            JSONScanner.unescape(raw, into: &out)
        } else {
            out.append(contentsOf: raw)
        }
    }

    /// A string field's text: straight from the line when it has no escapes
    /// (most have none), so that no byte array is built on the way.
    private static func string(_ line: UnsafeBufferPointer<UInt8>, _ f: FieldValue) -> String {
        if !f.hasEscapes { return String(decoding: UnsafeBufferPointer(rebasing: line[f.start..<f.end]), as: UTF8.self) }
        var bytes: [UInt8] = []
        decode(line, f, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The values of the last `.event` quality report.
    public var report: QualityReport {
        QualityReport(
            loss: loss.doubleValue!, rtt: rtt.doubleValue!, jitter: jitter.doubleValue!,
            bitrate: bitrate.doubleValue!, mos: mos.doubleValue)
    }

    /// The payload of the last `.event` line, built from its descriptor;
    /// `line` must be that line (a debug build checks).
    public func payload(in line: UnsafeBufferPointer<UInt8>) -> EventPayload {
        assertLastLine(line)
        if kind == .qualityReport { return .qualityReport(report) }
        // Loops, not `map` with closures: a closure that captures `self`
        // copied the parser, retaining each of its buffers, per event (3 %
        // of an ingest when the summaries decode stored events).
        var values: [PayloadValue] = []
        plan.withLayout(of: kind) { slots, tags in
            values.reserveCapacity(slots.count)
            for i in 0..<slots.count {
                let v = scanner[slot: slots[i]]
                switch tags[i] {
                case 0, 1, 5: values.append(v.type == .string ? .string(LineParser.string(line, v)) : .absent)
                case 2: values.append(v.type == .bool ? .bool(v.bool) : .absent)
                case 3: values.append(v.type == .array ? .strings(LineParser.arrayStrings(line, v)) : .absent)
                default: values.append(.absent)
                }
            }
        }
        return EventPayload(kind: kind, values: values)
    }

    /// The strings of an array of strings (the validator has checked it).
    private static func arrayStrings(_ line: UnsafeBufferPointer<UInt8>, _ v: FieldValue) -> [String] {
        var list: [String] = []
        LineParser.forEachString(in: line, v) { list.append(LineParser.string(line, $0)) }
        return list
    }

    /// Appends the canonical payload JSON of the last `.event` line (not a
    /// quality report), `line`, straight from the scanned bytes: the same
    /// text as `payload(in:).canonicalJSON`, without building Strings or
    /// the payload. This runs for every non-report line, so it matters for
    /// ingest speed.
    package func appendCanonicalPayload(of line: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        assertLastLine(line)
        let descriptor = plan.descriptors[Int(kind.rawValue)]!
        // The source reads the line and the scanned fields through the
        // buffers lent here: holding the parser, it would retain every
        // buffer the parser holds, once per event.
        scanner.withFields { fields in
            plan.withLayout(of: kind) { slots, _ in
                CanonicalJSON.write(descriptor, from: ScannedPayload(line: line, fields: fields, slots: slots), to: &out)
            }
        }
    }

    // MARK: Helpers

    /// An integral number as Int64 (`1e3` and `1795946400000.0` included).
    static func integer(_ d: DecimalNumber) -> Int64? {
        if d.isBinary {
            let v = d.doubleValue!
            guard v == v.rounded(), abs(v) < 9.2e18 else { return nil }
            return Int64(v)
        }
        let n = d.normalized
        guard n.exponent >= 0 else { return nil }
        var v = n.mantissa
        for _ in 0..<Int(n.exponent) {
            let (p, overflow) = v.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            v = p
        }
        return v
    }

    static func typeName(_ t: JSONType) -> String {
        switch t {
        case .absent: "missing"
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// At most 80 bytes of a value for an error message, cut at a character.
    static func clip(_ bytes: [UInt8]) -> String {
        guard bytes.count > 80 else { return String(decoding: bytes, as: UTF8.self) }
        var end = 80
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[..<end], as: UTF8.self) + "…"
    }
}

extension LineParser {
    /// Rebuilds a payload from its stored canonical JSON; `nil` when the text
    /// is damaged or does not fit `kind`.
    public mutating func payload(of kind: EventKind, canonicalJSON text: UnsafeBufferPointer<UInt8>) -> EventPayload? {
        lastLine = (Int(bitPattern: text.baseAddress), text.count)
        do { try scanner.scan(text) } catch { return nil }
        self.kind = kind
        guard validatePayload(text) == nil else { return nil }
        return payload(in: text)
    }
}

/// `EventCatalog` laid out for the parser: each kind's fields with their
/// scanner slots, and the kinds by name bytes.
///
/// The layouts and names are in memory the plan allocates in `init` and
/// frees in `deinit`, lent only to closures (`withLayout`) and read by
/// `kind(named:)`: reading them costs no retain or release, which the
/// arrays of the descriptors did, several times per event. There is one
/// plan, `shared`, so that memory is a cache for the life of the process,
/// bounded by the event table: 9,829 bytes in 77 blocks for event log
/// 1.2's 24 kinds (256 layouts of 32 bytes, each kind's slots, tags and
/// name, the by-length index; `ownedBytes`, bounded by ParsePlanTests).
// Unchecked: nothing is written after init.
final class ParsePlan: @unchecked Sendable {
    static let shared = ParsePlan()

    /// By kind number: the descriptor (names, for messages and the
    /// canonical writer).
    let descriptors: [EventDescriptor?]
    /// By kind number: the fields' scanner slots and type tags.
    private let layouts: UnsafeBufferPointer<KindLayout>
    /// The kinds' names by length: a name is matched with a memcmp against
    /// the few of its length, with no array built and no hashing (that was
    /// 3 % of parsing).
    private let names: UnsafeBufferPointer<KindName>
    /// `names` of length n are `names[nameStarts[n]..<nameStarts[n + 1]]`.
    private let nameStarts: UnsafeBufferPointer<Int>
    private let qualityReportName = Array("quality_report".utf8)
    /// A quality report's keys, for its hand-written fast path: looked up
    /// once here (as static lets, each read checked their lazy
    /// initialisation, five times a report).
    let reportKeys = (loss: FieldKey.named("loss"), rtt: FieldKey.named("rtt"), jitter: FieldKey.named("jitter"),
                      bitrate: FieldKey.named("bitrate"), mos: FieldKey.named("mos"))
    /// Every block allocated for the above, freed by `deinit`.
    private let owned: [UnsafeMutableRawPointer]
    /// Their size in bytes.
    let ownedBytes: Int

    private init() {
        var owned: [UnsafeMutableRawPointer] = []
        var ownedBytes = 0
        /// A copy of `values` in a block of the plan's own.
        func own<T>(_ values: [T]) -> UnsafeBufferPointer<T> {
            let copy = UnsafeMutableBufferPointer<T>.allocate(capacity: max(values.count, 1))
            _ = copy.initialize(from: values)
            owned.append(UnsafeMutableRawPointer(copy.baseAddress!))
            ownedBytes += MemoryLayout<T>.stride * copy.count
            return UnsafeBufferPointer(rebasing: copy[0..<values.count])
        }
        var slots = [[Int]](repeating: [], count: 256)
        for d in EventCatalog.descriptors {
            slots[Int(d.kind.rawValue)] = d.fields.map { FieldKey.named($0.name).rawValue }
        }
        // Kinds this version does not know share one empty layout.
        let none = KindLayout(slots: own([Int]()), tags: own([UInt8]()))
        var layouts = [KindLayout](repeating: none, count: 256)
        for d in EventCatalog.descriptors {
            let k = Int(d.kind.rawValue)
            layouts[k] = KindLayout(slots: own(slots[k]), tags: own(EventCatalog.byRawValue[k]?.tags ?? []))
        }
        self.layouts = own(layouts)
        descriptors = EventCatalog.byRawValue
        let sorted = EventCatalog.descriptors.map { (own($0.nameBytes), $0.kind) }
            .sorted { $0.0.count < $1.0.count }
        let longest = sorted.last?.0.count ?? 0
        var starts = [Int](repeating: 0, count: longest + 2)
        for n in 0...(longest + 1) { starts[n] = sorted.firstIndex { $0.0.count >= n } ?? sorted.count }
        names = own(sorted.map { KindName(bytes: $0.0, kind: $0.1) })
        nameStarts = own(starts)
        self.owned = owned
        self.ownedBytes = ownedBytes
    }

    deinit {
        // Every element type is trivial: nothing to deinitialize.
        for block in owned { block.deallocate() }
    }

    /// Lends the scanner slots and type tags of `kind`'s fields to `body`
    /// (empty for a kind this version does not know).
    @inline(__always)
    func withLayout<R>(of kind: EventKind, _ body: (_ slots: UnsafeBufferPointer<Int>, _ tags: UnsafeBufferPointer<UInt8>) -> R) -> R {
        let layout = layouts[Int(kind.rawValue)]
        return body(layout.slots, layout.tags)
    }

    /// Matches an `event` name's bytes. quality_report is most lines by far,
    /// so it is compared first, without hashing.
    @inline(__always)
    func kind(named bytes: UnsafeBufferPointer<UInt8>) -> EventKind? {
        if bytes.count == 14 && bytes[0] == UInt8(ascii: "q")
            && qualityReportName.withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress!, 14) }) == 0 {
            return .qualityReport
        }
        let n = bytes.count
        guard n + 1 < nameStarts.count, let base = bytes.baseAddress else { return nil }
        for i in nameStarts[n]..<nameStarts[n + 1] where memcmp(names[i].bytes.baseAddress!, base, n) == 0 {
            return names[i].kind
        }
        return nil
    }
}

/// A kind's `event` name bytes, for `ParsePlan.kind(named:)`: in the
/// plan's memory.
struct KindName {
    var bytes: UnsafeBufferPointer<UInt8>
    var kind: EventKind
}

/// One kind's fields as the parser walks them: scanner slots and type
/// tags, in the plan's memory.
struct KindLayout {
    var slots: UnsafeBufferPointer<Int>
    var tags: UnsafeBufferPointer<UInt8>
}

/// The last scanned line as a `CanonicalSource`: strings are copied from
/// the line as they are when they hold no escapes (raw JSON string bytes
/// then already are the canonical text), decoded and escaped again if not.
/// A view over buffers lent to `LineParser.appendCanonicalPayload`'s
/// closures, made and dropped inside them.
struct ScannedPayload: CanonicalSource {
    let line: UnsafeBufferPointer<UInt8>
    let fields: UnsafeBufferPointer<FieldValue>
    let slots: UnsafeBufferPointer<Int>

    private func value(_ i: Int) -> FieldValue { fields[slots[i]] }

    func isPresent(_ i: Int) -> Bool {
        let t = value(i).type
        return t != .absent && t != .null
    }

    func appendString(_ i: Int, to out: inout [UInt8]) { quoted(value(i), to: &out) }

    func bool(_ i: Int) -> Bool { value(i).bool }

    func appendStrings(_ i: Int, to out: inout [UInt8]) {
        var first = true
        LineParser.forEachString(in: line, value(i)) { element in
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            quoted(element, to: &out)
        }
    }

    func appendNumber(_ i: Int, to out: inout [UInt8]) {}  // reports never take this path

    private func quoted(_ f: FieldValue, to out: inout [UInt8]) {
        let raw = UnsafeBufferPointer(rebasing: line[f.start..<f.end])
        if !f.hasEscapes {
            // Without escapes the string is its canonical text as written:
            // copied with its quotes at once (three appends cost more).
            out.append(contentsOf: UnsafeBufferPointer(rebasing: line[f.start - 1..<f.end + 1]))
        } else {
            var decoded: [UInt8] = []
            JSONScanner.unescape(raw, into: &decoded)
            JSON.appendQuoted(decoded, to: &out)
        }
    }
}

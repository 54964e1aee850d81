#if canImport(Glibc)
import Glibc
#endif
import MQAStore

/// The type of a scanned JSON value.
enum JSONType: UInt8 {
    case absent, null, bool, number, string, array, object
}

/// Where one top-level field's value sits in the line, and what it is.
struct FieldValue {
    var type: JSONType = .absent
    /// Byte range of the value; for strings, of the contents between quotes.
    var start = 0
    var end = 0
    /// A string with backslash escapes must be decoded before use.
    var hasEscapes = false
    var bool = false
    var number = DecimalNumber(mantissa: 0, exponent: 0)
}

/// The top-level keys the log format defines; everything else is skipped
/// (after being checked to be valid JSON).
enum FieldKey: Int, CaseIterable {
    case ts, event, meeting, uid
    case engine, title, reason, error
    case loss, rtt, jitter, bitrate, mos
    case tier, speakers, publisher, track, kind, timedOut
    case target, media, on, byAdmin, opUid, previousTitle

    var name: String {
        switch self {
        case .ts: "ts"
        case .event: "event"
        case .meeting: "meeting"
        case .uid: "uid"
        case .engine: "engine"
        case .title: "title"
        case .reason: "reason"
        case .error: "error"
        case .loss: "loss"
        case .rtt: "rtt"
        case .jitter: "jitter"
        case .bitrate: "bitrate"
        case .mos: "mos"
        case .tier: "tier"
        case .speakers: "speakers"
        case .publisher: "publisher"
        case .track: "track"
        case .kind: "kind"
        case .timedOut: "timedOut"
        case .target: "target"
        case .media: "media"
        case .on: "on"
        case .byAdmin: "byAdmin"
        case .opUid: "opUid"
        case .previousTitle: "previousTitle"
        }
    }

    static let byName: [[UInt8]: FieldKey] = Dictionary(
        uniqueKeysWithValues: allCases.map { (Array($0.name.utf8), $0) })
}

/// Why a line is not valid JSON (the position is a 1-based byte column).
struct SyntaxError: Error {
    var message: String
    var column: Int
}

/// A validating JSON scanner over one line's UTF-8 bytes.
///
/// It checks the whole line against the JSON grammar (strings' UTF-8 and
/// escapes included) but keeps only the top-level fields of `FieldKey`, as
/// byte ranges into the line: no allocation per line on the common path.
struct JSONScanner {
    /// Nesting deeper than this is refused, so hostile input cannot exhaust
    /// the stack.
    static let maxDepth = 64

    var fields = [FieldValue](repeating: FieldValue(), count: FieldKey.allCases.count)
    private var keyScratch: [UInt8] = []

    /// Scans `line`; on success `fields` holds the known top-level fields.
    mutating func scan(_ line: UnsafeBufferPointer<UInt8>) throws(SyntaxError) {
        for i in fields.indices { fields[i].type = .absent }
        var p = 0
        let n = line.count
        skipSpace(line, &p)
        guard p < n else { throw SyntaxError(message: "empty line", column: 1) }
        guard line[p] == UInt8(ascii: "{") else {
            // Valid JSON that is not an object gets its own reason.
            var q = p
            if (try? skipValue(line, &q, depth: 0)) != nil {
                skipSpace(line, &q)
                if q == n { throw SyntaxError(message: "not a JSON object", column: p + 1) }
            }
            throw SyntaxError(message: "not valid JSON: expected '{'", column: p + 1)
        }
        p += 1
        skipSpace(line, &p)
        if p < n && line[p] == UInt8(ascii: "}") {
            p += 1
        } else {
            while true {
                guard p < n, line[p] == UInt8(ascii: "\"") else { throw syntax("expected a field name", p) }
                let keyStart = p + 1
                let keyEscaped = try scanString(line, &p)
                let keyEnd = p - 1
                skipSpace(line, &p)
                guard p < n, line[p] == UInt8(ascii: ":") else { throw syntax("expected ':'", p) }
                p += 1
                skipSpace(line, &p)
                let key = lookup(line, keyStart, keyEnd, keyEscaped)
                if let key {
                    fields[key.rawValue] = try scanField(line, &p)
                } else {
                    try skipValue(line, &p, depth: 1)
                }
                skipSpace(line, &p)
                guard p < n else { throw syntax("unterminated object", p) }
                if line[p] == UInt8(ascii: ",") {
                    p += 1
                    skipSpace(line, &p)
                    continue
                }
                guard line[p] == UInt8(ascii: "}") else { throw syntax("expected ',' or '}'", p) }
                p += 1
                break
            }
        }
        skipSpace(line, &p)
        guard p == n else { throw syntax("unexpected text after the object", p) }
    }

    private func syntax(_ message: String, _ p: Int) -> SyntaxError {
        SyntaxError(message: "not valid JSON: " + message, column: p + 1)
    }

    @inline(__always)
    func skipSpace(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int) {
        while p < s.count {
            let c = s[p]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            p += 1
        }
    }

    private mutating func lookup(_ s: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ escaped: Bool) -> FieldKey? {
        let length = end - start
        guard length <= 13 else { return nil }  // longest known key: previousTitle
        if !escaped {
            // Fast path: switch on length and first byte before comparing.
            return FieldKey.match(UnsafeBufferPointer(rebasing: s[start..<end]))
        }
        keyScratch.removeAll(keepingCapacity: true)
        JSONScanner.unescape(UnsafeBufferPointer(rebasing: s[start..<end]), into: &keyScratch)
        return keyScratch.withUnsafeBufferPointer { FieldKey.match($0) }
    }

    /// Scans a known field's value, capturing what the validator needs.
    private func scanField(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws(SyntaxError) -> FieldValue {
        var v = FieldValue()
        guard p < s.count else { throw syntax("expected a value", p) }
        let c = s[p]
        v.start = p
        switch c {
        case UInt8(ascii: "\""):
            v.type = .string
            v.start = p + 1
            v.hasEscapes = try scanString(s, &p)
            v.end = p - 1
            return v
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            v.type = .number
            v.number = try scanNumber(s, &p)
        case UInt8(ascii: "t"):
            try literal(s, &p, "true"); v.type = .bool; v.bool = true
        case UInt8(ascii: "f"):
            try literal(s, &p, "false"); v.type = .bool
        case UInt8(ascii: "n"):
            try literal(s, &p, "null"); v.type = .null
        case UInt8(ascii: "["):
            v.type = .array
            try skipValue(s, &p, depth: 1)
        case UInt8(ascii: "{"):
            v.type = .object
            try skipValue(s, &p, depth: 1)
        default:
            throw syntax("unexpected character", p)
        }
        v.end = p
        return v
    }

    private func literal(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ word: StaticString) throws(SyntaxError) {
        let count = word.utf8CodeUnitCount
        guard p + count <= s.count else { throw syntax("unexpected end", p) }
        let w = word.utf8Start
        for i in 0..<count where s[p + i] != w[i] { throw syntax("unexpected character", p + i) }
        p += count
    }

    /// Checks any JSON value and moves past it.
    func skipValue(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, depth: Int) throws(SyntaxError) {
        guard depth <= JSONScanner.maxDepth else { throw syntax("nested deeper than \(JSONScanner.maxDepth) levels", p) }
        guard p < s.count else { throw syntax("expected a value", p) }
        switch s[p] {
        case UInt8(ascii: "\""):
            _ = try scanString(s, &p)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try scanNumber(s, &p)
        case UInt8(ascii: "t"): try literal(s, &p, "true")
        case UInt8(ascii: "f"): try literal(s, &p, "false")
        case UInt8(ascii: "n"): try literal(s, &p, "null")
        case UInt8(ascii: "["):
            p += 1
            skipSpace(s, &p)
            if p < s.count && s[p] == UInt8(ascii: "]") { p += 1; return }
            while true {
                try skipValue(s, &p, depth: depth + 1)
                skipSpace(s, &p)
                guard p < s.count else { throw syntax("unterminated array", p) }
                if s[p] == UInt8(ascii: ",") { p += 1; skipSpace(s, &p); continue }
                guard s[p] == UInt8(ascii: "]") else { throw syntax("expected ',' or ']'", p) }
                p += 1
                return
            }
        case UInt8(ascii: "{"):
            p += 1
            skipSpace(s, &p)
            if p < s.count && s[p] == UInt8(ascii: "}") { p += 1; return }
            while true {
                guard p < s.count, s[p] == UInt8(ascii: "\"") else { throw syntax("expected a field name", p) }
                _ = try scanString(s, &p)
                skipSpace(s, &p)
                guard p < s.count, s[p] == UInt8(ascii: ":") else { throw syntax("expected ':'", p) }
                p += 1
                skipSpace(s, &p)
                try skipValue(s, &p, depth: depth + 1)
                skipSpace(s, &p)
                guard p < s.count else { throw syntax("unterminated object", p) }
                if s[p] == UInt8(ascii: ",") { p += 1; skipSpace(s, &p); continue }
                guard s[p] == UInt8(ascii: "}") else { throw syntax("expected ',' or '}'", p) }
                p += 1
                return
            }
        default:
            throw syntax("unexpected character", p)
        }
    }

    /// Moves past a string starting at its opening quote, checking escapes,
    /// control characters and UTF-8. Returns whether it holds escapes.
    func scanString(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws(SyntaxError) -> Bool {
        var i = p + 1
        let n = s.count
        var escaped = false
        while i < n {
            let c = s[i]
            if c == UInt8(ascii: "\"") {
                p = i + 1
                return escaped
            }
            if c == UInt8(ascii: "\\") {
                escaped = true
                guard i + 1 < n else { break }
                switch s[i + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    guard let unit = JSONScanner.hex4(s, i + 2) else { throw syntax("bad \\u escape", i) }
                    if unit >= 0xD800 && unit < 0xDC00 {
                        // A high surrogate must be followed by an escaped low one.
                        guard i + 12 <= n, s[i + 6] == UInt8(ascii: "\\"), s[i + 7] == UInt8(ascii: "u"),
                            let low = JSONScanner.hex4(s, i + 8), low >= 0xDC00 && low < 0xE000
                        else { throw syntax("unpaired surrogate in \\u escape", i) }
                        i += 12
                    } else if unit >= 0xDC00 && unit < 0xE000 {
                        throw syntax("unpaired surrogate in \\u escape", i)
                    } else {
                        i += 6
                    }
                default:
                    throw syntax("bad escape in string", i)
                }
                continue
            }
            if c < 0x20 { throw syntax("control character in string", i) }
            if c < 0x80 { i += 1; continue }
            i = try utf8Sequence(s, i)
        }
        throw syntax("unterminated string", p)
    }

    /// Checks one multi-byte UTF-8 sequence at `i` (RFC 3629: no overlongs,
    /// no surrogates, nothing past U+10FFFF); returns the index after it.
    private func utf8Sequence(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) throws(SyntaxError) -> Int {
        let n = s.count
        let c = s[i]
        @inline(__always) func cont(_ j: Int) -> Bool { j < n && s[j] & 0xC0 == 0x80 }
        switch c {
        case 0xC2...0xDF:
            if cont(i + 1) { return i + 2 }
        case 0xE0...0xEF:
            if cont(i + 1) && cont(i + 2) {
                let b1 = s[i + 1]
                if (c == 0xE0 && b1 < 0xA0) || (c == 0xED && b1 >= 0xA0) { break }
                return i + 3
            }
        case 0xF0...0xF4:
            if cont(i + 1) && cont(i + 2) && cont(i + 3) {
                let b1 = s[i + 1]
                if (c == 0xF0 && b1 < 0x90) || (c == 0xF4 && b1 >= 0x90) { break }
                return i + 4
            }
        default: break
        }
        throw SyntaxError(message: "invalid UTF-8", column: i + 1)
    }

    static func hex4(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32? {
        guard i + 4 <= s.count else { return nil }
        var v: UInt32 = 0
        for j in i..<i + 4 {
            let c = s[j]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    /// Scans a JSON number into an exact decimal. Numbers beyond 19 digits or
    /// an `Int16` exponent are kept as their correctly rounded `Double`.
    func scanNumber(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws(SyntaxError) -> DecimalNumber {
        let start = p
        let n = s.count
        var i = p
        var negative = false
        if s[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        guard i < n, s[i] >= UInt8(ascii: "0") && s[i] <= UInt8(ascii: "9") else { throw syntax("bad number", i) }
        var mantissa: UInt64 = 0
        var digits = 0  // significant digits kept in mantissa
        var dropped = false  // nonzero digits beyond what fits
        var exponent = 0
        if s[i] == UInt8(ascii: "0") {
            i += 1
            if i < n && s[i] >= UInt8(ascii: "0") && s[i] <= UInt8(ascii: "9") { throw syntax("leading zero in number", i) }
        } else {
            while i < n, s[i] >= UInt8(ascii: "0") && s[i] <= UInt8(ascii: "9") {
                let d = UInt64(s[i] - UInt8(ascii: "0"))
                if digits < 19 {
                    mantissa = mantissa * 10 + d
                    if mantissa != 0 { digits += 1 }
                } else {
                    exponent += 1
                    if d != 0 { dropped = true }
                }
                i += 1
            }
        }
        if i < n && s[i] == UInt8(ascii: ".") {
            i += 1
            guard i < n, s[i] >= UInt8(ascii: "0") && s[i] <= UInt8(ascii: "9") else { throw syntax("bad number", i) }
            while i < n, s[i] >= UInt8(ascii: "0") && s[i] <= UInt8(ascii: "9") {
                let d = UInt64(s[i] - UInt8(ascii: "0"))
                if digits < 19 {
                    mantissa = mantissa * 10 + d
                    if mantissa != 0 { digits += 1 }
                    exponent -= 1
                } else if d != 0 {
                    dropped = true
                }
                i += 1
            }
        }
        if i < n && (s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E")) {
            i += 1
            var expNegative = false
            if i < n && (s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-")) {
                expNegative = s[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < n, s[i] >= UInt8(ascii: "0") && s[i] <= UInt8(ascii: "9") else { throw syntax("bad number exponent", i) }
            var e = 0
            while i < n, s[i] >= UInt8(ascii: "0") && s[i] <= UInt8(ascii: "9") {
                if e < 100_000 { e = e * 10 + Int(s[i] - UInt8(ascii: "0")) }
                i += 1
            }
            exponent += expNegative ? -e : e
        }
        p = i
        if dropped || mantissa > UInt64(Int64.max) || exponent < -30000 || exponent > 30000 {
            return DecimalNumber(binary: JSONScanner.parseDouble(UnsafeBufferPointer(rebasing: s[start..<i])))
        }
        let m = Int64(mantissa)
        return DecimalNumber(mantissa: negative ? -m : m, exponent: Int16(exponent))
    }

    /// Correctly rounded conversion of number text by the C library.
    static func parseDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double {
        var buffer = [CChar](repeating: 0, count: text.count + 1)
        for i in 0..<text.count { buffer[i] = CChar(bitPattern: text[i]) }
        return strtod(buffer, nil)
    }

    /// Decodes the contents of a JSON string (already validated by
    /// `scanString`) into UTF-8 bytes.
    static func unescape(_ s: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var i = 0
        let n = s.count
        while i < n {
            let c = s[i]
            guard c == UInt8(ascii: "\\") else { out.append(c); i += 1; continue }
            let e = s[i + 1]
            switch e {
            case UInt8(ascii: "b"): out.append(0x08); i += 2
            case UInt8(ascii: "f"): out.append(0x0C); i += 2
            case UInt8(ascii: "n"): out.append(0x0A); i += 2
            case UInt8(ascii: "r"): out.append(0x0D); i += 2
            case UInt8(ascii: "t"): out.append(0x09); i += 2
            case UInt8(ascii: "u"):
                var scalar = hex4(s, i + 2)!
                i += 6
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    let low = hex4(s, i + 2)!
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                appendUTF8(scalar, to: &out)
            default: out.append(e); i += 2
            }
        }
    }

    static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0..<0x80: out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | v >> 6)); out.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | v >> 12)); out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        default:
            out.append(UInt8(0xF0 | v >> 18)); out.append(UInt8(0x80 | v >> 12 & 0x3F))
            out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        }
    }
}

extension FieldKey {
    /// The key's first eight bytes as a little-endian integer, zero padded.
    @inline(__always)
    static func word(_ k: UnsafeBufferPointer<UInt8>, from: Int = 0) -> UInt64 {
        var w: UInt64 = 0
        var i = min(k.count, from + 8) - 1
        while i >= from {
            w = w << 8 | UInt64(k[i])
            i -= 1
        }
        return w
    }

    static func word(_ s: StaticString) -> UInt64 {
        var w: UInt64 = 0
        let p = s.utf8Start
        for i in (0..<min(8, s.utf8CodeUnitCount)).reversed() { w = w << 8 | UInt64(p[i]) }
        return w
    }

    /// Matches a key's bytes by comparing them as one or two integers: no
    /// hashing, no per-byte loop on the hot path.
    static func match(_ k: UnsafeBufferPointer<UInt8>) -> FieldKey? {
        guard k.count <= 13 else { return nil }
        let w = word(k)
        switch k.count {
        case 2: return w == KeyWord.ts ? .ts : w == KeyWord.on ? .on : nil
        case 3: return w == KeyWord.uid ? .uid : w == KeyWord.rtt ? .rtt : w == KeyWord.mos ? .mos : nil
        case 4: return w == KeyWord.loss ? .loss : w == KeyWord.tier ? .tier : w == KeyWord.kind ? .kind : nil
        case 5:
            return w == KeyWord.event ? .event : w == KeyWord.title ? .title : w == KeyWord.track ? .track : w == KeyWord.error ? .error
                : w == KeyWord.media ? .media : w == KeyWord.opUid ? .opUid : nil
        case 6: return w == KeyWord.jitter ? .jitter : w == KeyWord.engine ? .engine : w == KeyWord.reason ? .reason : w == KeyWord.target ? .target : nil
        case 7: return w == KeyWord.meeting ? .meeting : w == KeyWord.bitrate ? .bitrate : w == KeyWord.byAdmin ? .byAdmin : nil
        case 8: return w == KeyWord.speakers ? .speakers : w == KeyWord.timedOut ? .timedOut : nil
        case 9: return w == KeyWord.publishe && word(k, from: 8) == KeyWord.rTail ? .publisher : nil
        case 13: return w == KeyWord.previous && word(k, from: 8) == KeyWord.titleTail ? .previousTitle : nil
        default: return nil
        }
    }
}

/// Known keys as little-endian integers (their first eight bytes; the tails
/// of the two longer keys separately), as literals so that the match
/// compiles to plain comparisons. `FieldKeyTests` checks them.
enum KeyWord {
    static let ts: UInt64 = 0x7374  // "ts"
    static let on: UInt64 = 0x6e6f  // "on"
    static let uid: UInt64 = 0x646975  // "uid"
    static let rtt: UInt64 = 0x747472  // "rtt"
    static let mos: UInt64 = 0x736f6d  // "mos"
    static let loss: UInt64 = 0x73736f6c  // "loss"
    static let tier: UInt64 = 0x72656974  // "tier"
    static let kind: UInt64 = 0x646e696b  // "kind"
    static let event: UInt64 = 0x746e657665  // "event"
    static let error: UInt64 = 0x726f727265  // "error"
    static let title: UInt64 = 0x656c746974  // "title"
    static let track: UInt64 = 0x6b63617274  // "track"
    static let media: UInt64 = 0x616964656d  // "media"
    static let opUid: UInt64 = 0x646955706f  // "opUid"
    static let engine: UInt64 = 0x656e69676e65  // "engine"
    static let reason: UInt64 = 0x6e6f73616572  // "reason"
    static let jitter: UInt64 = 0x72657474696a  // "jitter"
    static let target: UInt64 = 0x746567726174  // "target"
    static let meeting: UInt64 = 0x676e697465656d  // "meeting"
    static let bitrate: UInt64 = 0x65746172746962  // "bitrate"
    static let byAdmin: UInt64 = 0x6e696d64417962  // "byAdmin"
    static let speakers: UInt64 = 0x7372656b61657073  // "speakers"
    static let timedOut: UInt64 = 0x74754f64656d6974  // "timedOut"
    static let publishe: UInt64 = 0x656873696c627570  // "publishe"
    static let previous: UInt64 = 0x73756f6976657270  // "previous"
    static let rTail: UInt64 = 0x72  // "r"
    static let titleTail: UInt64 = 0x656c746954  // "Title"
}

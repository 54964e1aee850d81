#if canImport(Glibc)
import Glibc
#endif
import MQABase

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

/// A top-level key the log format defines: the envelope's four, then every
/// payload field name of `EventCatalog` (each once). Everything else on a
/// line is skipped after being checked to be valid JSON.
struct FieldKey: Hashable {
    /// The key's slot in `JSONScanner.fields`.
    let rawValue: Int

    static let ts = FieldKey(rawValue: 0)
    static let event = FieldKey(rawValue: 1)
    static let meeting = FieldKey(rawValue: 2)
    static let uid = FieldKey(rawValue: 3)

    /// Every key's name, by slot; derived from the event table.
    static let names: [String] = {
        var names = ["ts", "event", "meeting", "uid"]
        for d in EventCatalog.descriptors {
            for f in d.fields where !names.contains(f.name) { names.append(f.name) }
        }
        return names
    }()

    static var allCases: [FieldKey] { names.indices.map { FieldKey(rawValue: $0) } }

    var name: String { FieldKey.names[rawValue] }

    /// The key called `name`; traps for a name outside the table (a
    /// programming error: payload fields come from the table).
    static func named(_ name: String) -> FieldKey {
        FieldKey(rawValue: names.firstIndex(of: name)!)
    }
}

/// Why a line is not valid JSON (the position is a 1-based byte column).
package struct SyntaxError: Error {
    package var message: String
    package var column: Int

    package init(message: String, column: Int) {
        self.message = message
        self.column = column
    }
}

/// The JSON grammar's checks, each on a buffer and a position passed in:
/// no state of their own. The line scanner, which keeps the fields it
/// finds, and the dump importers, which walk nested documents
/// (`JSONWalker`), share them.
package protocol JSONGrammar: ~Copyable {}

/// The grammar alone, for walking documents member by member (the stats
/// dumps): copyable, as it holds nothing.
package struct JSONWalker: JSONGrammar {
    package init() {}
}

/// A validating JSON scanner over one line's UTF-8 bytes.
///
/// It checks the whole line against the JSON grammar (strings' UTF-8 and
/// escapes included) but keeps only the top-level fields of `FieldKey`, as
/// byte ranges into the line: no allocation per line on the common path.
///
/// Not copyable: it owns the memory its fields are written to, and a copy
/// would share it, so that scanning with one overwrote the other's fields.
package struct JSONScanner: ~Copyable, JSONGrammar {
    /// Nesting deeper than this is refused, so hostile input cannot exhaust
    /// the stack.
    static let maxDepth = 512

    /// The known top-level fields of the last line, by `FieldKey` slot, in
    /// memory this scanner allocates and frees: written through a pointer,
    /// as stored into an array every field write checked the array's
    /// uniqueness. Read with the subscript or `withFields`.
    private let fields: UnsafeMutableBufferPointer<FieldValue>
    private var keyScratch: [UInt8] = []
    /// The key table, held here so the hot loop reads no global.
    private let keys = KeyTable.shared

    package init() {
        fields = .allocate(capacity: FieldKey.names.count)
        fields.initialize(repeating: FieldValue())
    }

    deinit { fields.deallocate() }

    /// Field `slot` (a `FieldKey` raw value) of the last line scanned; a
    /// slot outside the table traps in a debug build.
    @inline(__always)
    subscript(slot slot: Int) -> FieldValue { fields[slot] }

    /// Lends the last line's fields, by slot, to `body`, for a view that
    /// reads many of them. They are valid in `body` only: the scanner's next
    /// line overwrites them and its end frees them.
    @inline(__always)
    func withFields<R>(_ body: (UnsafeBufferPointer<FieldValue>) -> R) -> R {
        body(UnsafeBufferPointer(fields))
    }

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
            // Each separator is looked for first where compact JSON has it,
            // and spaces are skipped only when it is not there: most lines
            // have none, and a `skipSpace` before every check cost ~10
            // instructions a field.
            while true {
                guard p < n, line[p] == UInt8(ascii: "\"") else { throw syntax("expected a field name", p) }
                var key: FieldKey?
                let slot = shortKey(line, &p)
                if slot != JSONScanner.notShort {
                    key = slot >= 0 ? FieldKey(rawValue: slot) : nil
                } else {
                    let keyStart = p + 1
                    let keyEscaped = try scanString(line, &p)
                    key = lookup(line, keyStart, p - 1, keyEscaped)
                }
                if p < n && line[p] == UInt8(ascii: ":") {
                    p += 1
                } else {
                    skipSpace(line, &p)
                    guard p < n, line[p] == UInt8(ascii: ":") else { throw syntax("expected ':'", p) }
                    p += 1
                }
                skipSpace(line, &p)
                if let key {
                    fields[key.rawValue] = try scanField(line, &p)
                } else {
                    try skipValue(line, &p, depth: 1)
                }
                guard p < n else { throw syntax("unterminated object", p) }
                var c = line[p]
                if c <= 0x20 {
                    skipSpace(line, &p)
                    guard p < n else { throw syntax("unterminated object", p) }
                    c = line[p]
                }
                if c == UInt8(ascii: ",") {
                    p += 1
                    if p < n && line[p] == UInt8(ascii: "\"") { continue }
                    skipSpace(line, &p)
                    continue
                }
                guard c == UInt8(ascii: "}") else { throw syntax("expected ',' or '}'", p) }
                p += 1
                break
            }
        }
        skipSpace(line, &p)
        guard p == n else { throw syntax("unexpected text after the object", p) }
    }

    /// `shortKey` found no short plain key to match.
    static let notShort = -2

    /// A field name of at most 16 plain ASCII bytes (every known one), at
    /// `p` (its opening quote): matched from the two words that scanning
    /// it loads anyway, and `p` moved past its closing quote. Returns the
    /// key's slot, -1 for a name no key has, or `notShort` (nothing moved)
    /// for any other name, which `scanString` then checks byte by byte.
    /// Scanning and matching apart cost ~135 instructions a key, ten keys
    /// a line.
    ///
    /// `@_transparent` because `@inline(__always)` left this and
    /// `scanField` as calls in `scan`'s loop; inlined, parsing a line takes
    /// 12 % fewer instructions (650M vs 738M on 189k lines).
    @_transparent
    private func shortKey(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int) -> Int {
        guard p + 17 <= s.count, let base = s.baseAddress else { return JSONScanner.notShort }
        let raw = UnsafeRawPointer(base + p + 1)
        let head = raw.loadUnaligned(as: UInt64.self)
        var flagged = JSONScanner.specialBytes(head)
        var length: Int
        var tail: UInt64 = 0
        if flagged != 0 {
            length = flagged.trailingZeroBitCount >> 3
            guard (head >> UInt64(length * 8)) & 0xFF == 0x22 else { return JSONScanner.notShort }
        } else {
            tail = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            flagged = JSONScanner.specialBytes(tail)
            guard flagged != 0 else { return JSONScanner.notShort }
            let inTail = flagged.trailingZeroBitCount >> 3
            guard (tail >> UInt64(inTail * 8)) & 0xFF == 0x22 else { return JSONScanner.notShort }
            length = 8 + inTail
            tail &= inTail == 0 ? 0 : ~0 >> UInt64(64 - inTail * 8)
        }
        let masked = length >= 8 ? head : (length == 0 ? 0 : head & ~0 >> UInt64(64 - length * 8))
        p += length + 2
        return keys.slot(head: masked, tail: tail, length: length)
    }

    /// The high bit of each of the eight bytes of `w` (little-endian) that
    /// is a quote, a backslash, a control character or not ASCII. Bytes
    /// above a flagged one may be flagged wrongly (borrows); the lowest
    /// flagged byte is always right, and that is the one the caller uses.
    @inline(__always)
    static func specialBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        let control = (w &- ones &* 0x20) & ~w
        return ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | control | w) & (ones &* 0x80)
    }

}

// The grammar: checks that keep no state, for the scanner and the walker.
extension JSONGrammar where Self: ~Copyable {
    fileprivate func syntax(_ message: String, _ p: Int) -> SyntaxError {
        SyntaxError(message: "not valid JSON: " + message, column: p + 1)
    }

    @inline(__always)
    package func skipSpace(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int) {
        while p < s.count {
            let c = s[p]
            // Most bytes met here are no space at all (a quote, a digit, a
            // comma): one compare says so before the four.
            guard c <= 0x20, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            p += 1
        }
    }

}

extension JSONScanner {
    private mutating func lookup(_ s: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ escaped: Bool) -> FieldKey? {
        if end - start > KeyTable.maxLength { return nil }
        if !escaped { return keys.match(in: s, start, end) }
        keyScratch.removeAll(keepingCapacity: true)
        JSONScanner.unescape(UnsafeBufferPointer(rebasing: s[start..<end]), into: &keyScratch)
        let keys = self.keys
        return keyScratch.withUnsafeBufferPointer { keys.match($0) }
    }

}

extension JSONGrammar where Self: ~Copyable {
    /// Scans a known field's value, capturing what the validator needs.
    @_transparent
    fileprivate func scanField(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws(SyntaxError) -> FieldValue {
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

    fileprivate func literal(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ word: StaticString) throws(SyntaxError) {
        let count = word.utf8CodeUnitCount
        guard p + count <= s.count else { throw syntax("unexpected end", p) }
        let w = word.utf8Start
        for i in 0..<count where s[p + i] != w[i] { throw syntax("unexpected character", p + i) }
        p += count
    }

    /// Checks any JSON value and moves past it.
    package func skipValue(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, depth: Int) throws(SyntaxError) {
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
            // Eight bytes at a time while they are plain ASCII with no quote,
            // backslash or control character: most strings are ids and names
            // of that kind, and this loop was the parser's largest cost.
            if let base = s.baseAddress {
                while i + 8 <= n {
                    let flagged = JSONScanner.specialBytes(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                    if flagged == 0 {
                        i += 8
                    } else {
                        i += flagged.trailingZeroBitCount >> 3  // the first special byte
                        break
                    }
                }
                if i >= n { break }
            }
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
                    guard JSONScanner.hex4(s, i + 2) != nil else { throw syntax("bad \\u escape", i) }
                    // An unpaired surrogate (`\ud83c` of an emoji cut in
                    // two, as JavaScript's JSON.stringify writes it) is
                    // JSON's grammar all the same (RFC 8259, 8.2): the
                    // string is valid, and decoding gives U+FFFD for it.
                    i += 6
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
    fileprivate func utf8Sequence(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) throws(SyntaxError) -> Int {
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

    package static func hex4(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32? {
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
    ///
    /// Numbers of at most 18 digits (all a log holds in practice) fit the
    /// mantissa whatever their zeros, so their digits are taken without the
    /// per-digit bookkeeping of `scanLongNumber`, which gives the same value.
    func scanNumber(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws(SyntaxError) -> DecimalNumber {
        let n = s.count
        var i = p
        let negative = s[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        @inline(__always) func digit(_ j: Int) -> UInt64? {
            guard j < n else { return nil }
            let d = s[j] &- UInt8(ascii: "0")
            return d < 10 ? UInt64(d) : nil
        }
        guard let first = digit(i) else { throw syntax("bad number", i) }
        let digitsStart = i
        var mantissa = first
        i += 1
        if first == 0 {
            if digit(i) != nil { throw syntax("leading zero in number", i) }
        } else {
            while let d = digit(i) {
                mantissa = mantissa &* 10 &+ d
                i += 1
            }
        }
        var digits = i - digitsStart
        var exponent = 0
        if i < n && s[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            guard digit(i) != nil else { throw syntax("bad number", i) }
            while let d = digit(i) {
                mantissa = mantissa &* 10 &+ d
                i += 1
            }
            exponent = fractionStart - i
            digits += i - fractionStart
        }
        if digits > 18 { return try scanLongNumber(s, &p) }
        exponent += try exponentPart(s, &i)
        if exponent < -30000 || exponent > 30000 { return try scanLongNumber(s, &p) }
        p = i
        let m = Int64(mantissa)
        return DecimalNumber(mantissa: negative ? -m : m, exponent: Int16(exponent))
    }

    /// `scanNumber` for any number: digits beyond the 19th are dropped
    /// (and the exponent raised) or, when nonzero, make the value binary.
    func scanLongNumber(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws(SyntaxError) -> DecimalNumber {
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
        exponent += try exponentPart(s, &i)
        p = i
        // Zero is zero at any exponent (`0e99999`): exact, not out of range.
        if mantissa == 0 && !dropped && (exponent < -30000 || exponent > 30000) { exponent = 0 }
        if dropped || mantissa > UInt64(Int64.max) || exponent < -30000 || exponent > 30000 {
            return DecimalNumber(binary: JSONScanner.parseDouble(UnsafeBufferPointer(rebasing: s[start..<i])))
        }
        let m = Int64(mantissa)
        return DecimalNumber(mantissa: negative ? -m : m, exponent: Int16(exponent))
    }

    /// A number's `e`/`E` part at `i`, if any, moved past: its value, with
    /// digits beyond 100,000 no longer counted (that is out of range anyway).
    @inline(__always)
    fileprivate func exponentPart(_ s: UnsafeBufferPointer<UInt8>, _ i: inout Int) throws(SyntaxError) -> Int {
        let n = s.count
        guard i < n && (s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E")) else { return 0 }
        i += 1
        var negative = false
        if i < n && (s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-")) {
            negative = s[i] == UInt8(ascii: "-")
            i += 1
        }
        guard i < n, s[i] &- UInt8(ascii: "0") < 10 else { throw syntax("bad number exponent", i) }
        var e = 0
        while i < n, s[i] &- UInt8(ascii: "0") < 10 {
            if e < 100_000 { e = e * 10 + Int(s[i] - UInt8(ascii: "0")) }
            i += 1
        }
        return negative ? -e : e
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
                    // Paired with an escaped low surrogate, one scalar;
                    // alone, the replacement character.
                    if i + 6 <= n, s[i] == UInt8(ascii: "\\"), s[i + 1] == UInt8(ascii: "u"),
                       let low = hex4(s, i + 2), low >= 0xDC00 && low < 0xE000 {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    } else {
                        scalar = 0xFFFD
                    }
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    scalar = 0xFFFD
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

/// The known keys as integers, for matching a key with one or two integer
/// compares instead of hashing its bytes: each key's first eight bytes and
/// next eight as little-endian words, in an open-addressing table indexed by
/// a multiplicative hash of the first word and the length. Built from
/// `FieldKey.names` at start-up, so a new field name needs no constant.
final class KeyTable: @unchecked Sendable {
    /// Longest key the table can hold (two words).
    static let maxLength = 16

    static let shared = KeyTable(FieldKey.names)

    private struct Entry {
        var head: UInt64 = 0
        var tail: UInt64 = 0
        var length = 0
        var slot = -1
    }

    /// Never written after `init`; a raw buffer, so that the lookup has no
    /// bounds checks or reference counting.
    private let entries: UnsafeMutableBufferPointer<Entry>
    private let mask: Int

    init(_ names: [String]) {
        var size = 64
        while size < names.count * 4 { size *= 2 }
        mask = size - 1
        entries = .allocate(capacity: size)
        entries.initialize(repeating: Entry())
        for (slot, name) in names.enumerated() {
            let bytes = Array(name.utf8)
            precondition(bytes.count <= KeyTable.maxLength, "field name \(name) longer than \(KeyTable.maxLength) bytes")
            let (head, tail) = bytes.withUnsafeBufferPointer { (KeyTable.word($0, from: 0), KeyTable.word($0, from: 8)) }
            var i = KeyTable.index(head, bytes.count, mask)
            while entries[i].slot >= 0 { i = (i + 1) & mask }
            entries[i] = Entry(head: head, tail: tail, length: bytes.count, slot: slot)
        }
    }

    deinit { entries.deallocate() }

    @inline(__always)
    private static func index(_ head: UInt64, _ length: Int, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: ((head &+ UInt64(length)) &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }

    /// Up to eight bytes of `k` from `from` as a little-endian integer, zero padded.
    @inline(__always)
    static func word(_ k: UnsafeBufferPointer<UInt8>, from: Int) -> UInt64 {
        var w: UInt64 = 0
        var i = min(k.count, from + 8) - 1
        while i >= from {
            w = w << 8 | UInt64(k[i])
            i -= 1
        }
        return w
    }

    /// The key whose bytes are `line[start..<end]`, if it is known: as
    /// `match`, but the words are loaded whole when the line has the bytes
    /// (a key is followed by at least `":` and a value).
    @inline(__always)
    func match(in line: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> FieldKey? {
        let n = end - start
        guard start + 16 <= line.count, let base = line.baseAddress else {
            return match(UnsafeBufferPointer(rebasing: line[start..<end]))
        }
        let raw = UnsafeRawPointer(base + start)
        let headMask: UInt64 = n >= 8 ? ~0 : (1 << UInt64(8 * n)) &- 1
        let head = raw.loadUnaligned(as: UInt64.self) & headMask
        var i = KeyTable.index(head, n, mask)
        while true {
            let e = entries[i]
            if e.slot < 0 { return nil }
            if e.head == head && e.length == n {
                if n <= 8 { return FieldKey(rawValue: e.slot) }
                let tailMask: UInt64 = n >= 16 ? ~0 : (1 << UInt64(8 * (n - 8))) &- 1
                if e.tail == raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) & tailMask { return FieldKey(rawValue: e.slot) }
            }
            i = (i + 1) & mask
        }
    }

    /// The slot of the key of `length` ≤ 16 bytes whose first eight and
    /// next eight bytes are the zero-padded words `head` and `tail`, or -1.
    @inline(__always)
    func slot(head: UInt64, tail: UInt64, length n: Int) -> Int {
        var i = KeyTable.index(head, n, mask)
        while true {
            let e = entries[i]
            if e.slot < 0 { return -1 }
            if e.head == head && e.length == n && e.tail == tail { return e.slot }
            i = (i + 1) & mask
        }
    }

    /// The key whose bytes are `k`, if it is known.
    @inline(__always)
    func match(_ k: UnsafeBufferPointer<UInt8>) -> FieldKey? {
        let n = k.count
        guard n <= KeyTable.maxLength else { return nil }
        let head = KeyTable.word(k, from: 0)
        var i = KeyTable.index(head, n, mask)
        while true {
            let e = entries[i]
            if e.slot < 0 { return nil }
            if e.head == head && e.length == n && (n <= 8 || e.tail == KeyTable.word(k, from: 8)) {
                return FieldKey(rawValue: e.slot)
            }
            i = (i + 1) & mask
        }
    }
}

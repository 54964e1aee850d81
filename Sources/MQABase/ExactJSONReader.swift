import Foundation

/// Reads a small JSON document (a tier config, a grid, a partials file)
/// into the values `JSONSerialization` gives — `[String: Any]`, `[Any]`,
/// `String`, `NSNumber` (booleans too), `NSNull` — but with every number
/// the nearest double to its text.
///
/// Why not `JSONSerialization`: on Linux it reads some numbers of 15 or
/// more significant digits one or two steps off (`3.4000000000000004`
/// came back as `3.4000000000000012`), and tiers.md is exact to the bit:
/// a threshold one step off moves a tier change. Swift's `Double(_:)`
/// rounds correctly.
public enum ExactJSONReader {
    /// Why a document could not be read, with the byte offset.
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var offset: Int
        public var description: String { "\(message) at byte \(offset + 1)" }
    }

    /// Nesting deeper than this is refused (the reader recurses). Counted
    /// as the line scanner counts (`JSONScanner.maxDepth`): the document
    /// at 0, a value in it at 1, so that a line the scanner takes (a
    /// context line, whose fields this reader then reads) is taken here.
    static let maxDepth = 512

    /// The document's value; any JSON value is accepted at the top.
    ///
    /// `uniqueKeys`: a key given twice in one object is an error, not
    /// the last one winning unseen (a config's `"hysteresis": 0.1,
    /// "hysteresis": 0.5` used 0.5).
    public static func parse(_ data: Data, uniqueKeys: Bool = false) throws(Failure) -> Any {
        let bytes = [UInt8](data)
        // A byte-order mark, as some editors save one.
        var p = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let value = try bytes.withUnsafeBufferPointer { b throws(Failure) in
            let reader = Reader(b: b, uniqueKeys: uniqueKeys)
            let v = try reader.value(&p, depth: 0)
            reader.space(&p)
            guard p == b.count else { throw Failure(message: "unexpected text after the value", offset: p) }
            return v
        }
        return value
    }

    private struct Reader {
        let b: UnsafeBufferPointer<UInt8>
        let uniqueKeys: Bool

        func space(_ p: inout Int) {
            while p < b.count, b[p] == 0x20 || b[p] == 0x0A || b[p] == 0x0D || b[p] == 0x09 { p += 1 }
        }

        func fail(_ message: String, _ p: Int) -> Failure { Failure(message: message, offset: p) }

        /// After an item of an object or array: true past its `closer`,
        /// false past a ',' (another item follows).
        func closes(_ p: inout Int, with closer: UInt8, _ what: String) throws(Failure) -> Bool {
            space(&p)
            guard p < b.count else { throw fail("unterminated \(what)", p) }
            if b[p] == UInt8(ascii: ",") { p += 1; return false }
            guard b[p] == closer else { throw fail("expected ',' or '\(Character(Unicode.Scalar(closer)))'", p) }
            p += 1
            return true
        }

        func value(_ p: inout Int, depth: Int) throws(Failure) -> Any {
            guard depth <= ExactJSONReader.maxDepth else { throw fail("nested deeper than \(ExactJSONReader.maxDepth) levels", p) }
            space(&p)
            guard p < b.count else { throw fail("unexpected end", p) }
            switch b[p] {
            case UInt8(ascii: "{"):
                p += 1
                var object: [String: Any] = [:]
                space(&p)
                if p < b.count, b[p] == UInt8(ascii: "}") { p += 1; return object }
                while true {
                    space(&p)
                    guard p < b.count, b[p] == UInt8(ascii: "\"") else { throw fail("expected a field name", p) }
                    let keyAt = p
                    let key = try string(&p)
                    if uniqueKeys && object[key] != nil { throw fail("key \"\(key)\" given twice", keyAt) }
                    space(&p)
                    guard p < b.count, b[p] == UInt8(ascii: ":") else { throw fail("expected ':'", p) }
                    p += 1
                    object[key] = try value(&p, depth: depth + 1)
                    if try closes(&p, with: UInt8(ascii: "}"), "object") { return object }
                }
            case UInt8(ascii: "["):
                p += 1
                var array: [Any] = []
                space(&p)
                if p < b.count, b[p] == UInt8(ascii: "]") { p += 1; return array }
                while true {
                    array.append(try value(&p, depth: depth + 1))
                    if try closes(&p, with: UInt8(ascii: "]"), "array") { return array }
                }
            case UInt8(ascii: "\""):
                return try string(&p)
            case UInt8(ascii: "t"): return try literal(&p, "true", NSNumber(value: true))
            case UInt8(ascii: "f"): return try literal(&p, "false", NSNumber(value: false))
            case UInt8(ascii: "n"): return try literal(&p, "null", NSNull())
            default:
                return try number(&p)
            }
        }

        func literal(_ p: inout Int, _ word: String, _ v: Any) throws(Failure) -> Any {
            let w = Array(word.utf8)
            guard p + w.count <= b.count, Array(b[p..<p + w.count]) == w else { throw fail("expected a value", p) }
            p += w.count
            return v
        }

        /// A number by JSON's grammar; an integer that fits is an integer
        /// (as `JSONSerialization` gives it), any other the nearest double.
        func number(_ p: inout Int) throws(Failure) -> Any {
            let start = p
            var integral = true
            if p < b.count, b[p] == UInt8(ascii: "-") { p += 1 }
            func digits(_ p: inout Int) -> Int {
                let from = p
                while p < b.count, b[p] >= 0x30, b[p] <= 0x39 { p += 1 }
                return p - from
            }
            let intStart = p
            let n = digits(&p)
            guard n > 0 else { throw fail("expected a value", start) }
            if n > 1, b[intStart] == 0x30 { throw fail("leading zero in number", start) }
            if p < b.count, b[p] == UInt8(ascii: ".") {
                p += 1
                integral = false
                guard digits(&p) > 0 else { throw fail("bad number", start) }
            }
            if p < b.count, b[p] == UInt8(ascii: "e") || b[p] == UInt8(ascii: "E") {
                p += 1
                integral = false
                if p < b.count, b[p] == UInt8(ascii: "+") || b[p] == UInt8(ascii: "-") { p += 1 }
                guard digits(&p) > 0 else { throw fail("bad number exponent", start) }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<p]), as: UTF8.self)
            if integral, let i = Int(text) { return NSNumber(value: i) }
            guard let d = Double(text), d.isFinite else { throw fail("number out of range", start) }
            return NSNumber(value: d)
        }

        func string(_ p: inout Int) throws(Failure) -> String {
            let start = p
            p += 1  // the opening quote
            var out: [UInt8] = []
            while true {
                guard p < b.count else { throw fail("unterminated string", start) }
                let c = b[p]
                if c == UInt8(ascii: "\"") { p += 1; break }
                if c < 0x20 { throw fail("control character in string", p) }
                if c != UInt8(ascii: "\\") { out.append(c); p += 1; continue }
                p += 1
                guard p < b.count else { throw fail("unterminated string", start) }
                let e = b[p]
                p += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4(&p)
                    // An unpaired surrogate is JSON's grammar (RFC 8259,
                    // 8.2): U+FFFD, as the line scanner reads it.
                    if (0xD800..<0xDC00).contains(scalar) {
                        var q = p + 2
                        if p + 1 < b.count, b[p] == UInt8(ascii: "\\"), b[p + 1] == UInt8(ascii: "u"),
                           let low = try? hex4(&q), (0xDC00..<0xE000).contains(low) {
                            p = q
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            scalar = 0xFFFD
                        }
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        scalar = 0xFFFD
                    }
                    out += Array(String(Character(Unicode.Scalar(scalar)!)).utf8)
                default: throw fail("bad escape in string", p - 1)
                }
            }
            guard let s = String(validating: out, as: UTF8.self) else { throw fail("not UTF-8", start) }
            return s
        }

        func hex4(_ p: inout Int) throws(Failure) -> UInt32 {
            guard p + 4 <= b.count else { throw fail("bad \\u escape", p) }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = b[p]
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: throw fail("bad \\u escape", p)
                }
                v = v << 4 | d
                p += 1
            }
            return v
        }
    }
}

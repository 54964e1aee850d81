/// A JSON value with object keys kept in the order given, so that outputs are
/// stable and read in the order the spec lists them.
public indirect enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool { a.rendered() == b.rendered() }

    /// `nil` becomes `null`.
    public static func optional(_ v: Double?) -> JSON { v.map { .double($0) } ?? .null }
    public static func optional(_ v: Int64?) -> JSON { v.map { .int($0) } ?? .null }
    public static func optional(_ v: String?) -> JSON { v.map { .string($0) } ?? .null }

    /// Compact by default; `pretty` indents by two spaces.
    public func rendered(pretty: Bool = false) -> String {
        var out = ""
        write(to: &out, pretty: pretty, indent: 0)
        return out
    }

    /// Appends the value as it stands at nesting depth `indent` (its
    /// closing bracket's indentation; `JSONStreamWriter` writes the rest).
    func write(to out: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSON.number(d)
        case .string(let s): JSON.quote(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                item.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case .object(let fields):
            if fields.isEmpty { out += "{}"; return }
            out += "{"
            for (i, (key, value)) in fields.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                JSON.quote(key, into: &out)
                out += pretty ? ": " : ":"
                value.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }

    /// Shortest text that reads back as the same double; NaN and infinities,
    /// which JSON cannot carry, become `null`.
    public static func number(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    /// `["a","b"]`: strings as a JSON array.
    public static func stringArray(_ strings: [String]) -> String {
        var out = "["
        for (i, s) in strings.enumerated() {
            if i > 0 { out += "," }
            quote(s, into: &out)
        }
        return out + "]"
    }

    /// Appends `s` as a JSON string literal: the rule of `appendQuoted`.
    public static func quote(_ s: String, into out: inout String) {
        // Most ids and texts need no escape: append them whole, without
        // building the bytes.
        if !s.utf8.contains(where: needsEscape) {
            out += "\""
            out += s
            out += "\""
            return
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count + 8)
        appendQuoted(s.utf8, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// The one rule for JSON string literals, on UTF-8 bytes: `"`, `\` and
    /// control characters are escaped (`\n`, `\r`, `\t` short, the others
    /// `\u00xx`), every other byte (DEL and non-ASCII included) is copied.
    /// `utf8` must be valid UTF-8: a String's `utf8`, or bytes the scanner
    /// decoded. Bytes in, bytes out, so the canonical payload writer on the
    /// ingest path builds no String; `quote` is the same rule for text.
    @inlinable
    public static func appendQuoted<C: Collection<UInt8>>(_ utf8: C, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in utf8 {
            if !needsEscape(b) { out.append(b); continue }
            out.append(UInt8(ascii: "\\"))
            switch b {
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(b)
            default:
                out.append(contentsOf: "u00".utf8)
                out.append(hexDigit(b >> 4))
                out.append(hexDigit(b & 15))
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether a byte cannot stand in a JSON string as it is.
    @inlinable
    static func needsEscape(_ b: UInt8) -> Bool {
        b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\")
    }

    /// A lowercase hex digit for `v` in 0...15.
    @inlinable
    static func hexDigit(_ v: UInt8) -> UInt8 {
        v < 10 ? UInt8(ascii: "0") + v : UInt8(ascii: "a") + v - 10
    }
}

import MQABase

/// One scanned JSON value that is not a container: what the importers read
/// out of stats reports. Strings stay byte ranges into the scanned buffer.
package enum JSONScalar {
    case number(DecimalNumber)
    case string(start: Int, end: Int, escaped: Bool)
    case bool(Bool)
    case null
    /// An array or object, validated and skipped.
    case container
}

/// Walking nested documents (the stats dumps) with the grammar the line
/// scanner uses (`JSONWalker`): the caller visits the members it wants and
/// lets the scanner check and skip the rest, so no tree is ever built.
extension JSONGrammar where Self: ~Copyable {
    /// Visits each member of the object at `p` (which must be `{`). `body`
    /// gets the key's byte range and must move `p` past the member's value
    /// (e.g. with `skipValue`). On return `p` is after the closing `}`.
    package func forEachMember(
        _ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, depth: Int,
        _ body: (_ keyStart: Int, _ keyEnd: Int, _ keyEscaped: Bool, _ p: inout Int) throws -> Void
    ) throws {
        guard try enter(s, &p, depth: depth, "{", "}") else { return }
        repeat {
            guard p < s.count, s[p] == UInt8(ascii: "\"") else { throw SyntaxError(message: "not valid JSON: expected a field name", column: p + 1) }
            let keyStart = p + 1
            let escaped = try scanString(s, &p)
            let keyEnd = p - 1
            skipSpace(s, &p)
            guard p < s.count, s[p] == UInt8(ascii: ":") else { throw SyntaxError(message: "not valid JSON: expected ':'", column: p + 1) }
            p += 1
            skipSpace(s, &p)
            guard p < s.count else { throw SyntaxError(message: "not valid JSON: expected a value", column: p + 1) }
            try body(keyStart, keyEnd, escaped, &p)
        } while try more(s, &p, "}", "object")
    }

    /// Visits each element of the array at `p` (which must be `[`); `body`
    /// must move `p` past the element.
    package func forEachElement(
        _ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, depth: Int,
        _ body: (_ index: Int, _ p: inout Int) throws -> Void
    ) throws {
        guard try enter(s, &p, depth: depth, "[", "]") else { return }
        var index = 0
        repeat {
            guard p < s.count else { throw SyntaxError(message: "not valid JSON: expected a value", column: p + 1) }
            try body(index, &p)
            index += 1
        } while try more(s, &p, "]", "array")
    }

    /// Steps into the container opening at `p`; false (with `p` after it)
    /// when it is empty.
    @inline(__always)
    private func enter(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, depth: Int,
                       _ open: Unicode.Scalar, _ close: Unicode.Scalar) throws -> Bool {
        guard depth <= JSONScanner.maxDepth else { throw SyntaxError(message: "not valid JSON: nested too deep", column: p + 1) }
        guard p < s.count, s[p] == UInt8(ascii: open) else { throw SyntaxError(message: "not valid JSON: expected '\(open)'", column: p + 1) }
        p += 1
        skipSpace(s, &p)
        if p < s.count && s[p] == UInt8(ascii: close) { p += 1; return false }
        return true
    }

    /// After a member or element: true (with `p` at the next one) after a
    /// comma, false (with `p` after the container) at its end.
    @inline(__always)
    private func more(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ close: Unicode.Scalar, _ container: String) throws -> Bool {
        skipSpace(s, &p)
        guard p < s.count else { throw SyntaxError(message: "not valid JSON: unterminated \(container)", column: p + 1) }
        if s[p] == UInt8(ascii: ",") { p += 1; skipSpace(s, &p); return true }
        guard s[p] == UInt8(ascii: close) else { throw SyntaxError(message: "not valid JSON: expected ',' or '\(close)'", column: p + 1) }
        p += 1
        return false
    }

    /// Scans any value at `p`, returning scalars and skipping containers.
    package func scanScalar(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, depth: Int) throws -> JSONScalar {
        guard p < s.count else { throw SyntaxError(message: "not valid JSON: expected a value", column: p + 1) }
        switch s[p] {
        case UInt8(ascii: "\""):
            let start = p + 1
            let escaped = try scanString(s, &p)
            return .string(start: start, end: p - 1, escaped: escaped)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try scanNumber(s, &p))
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            let value = s[p] == UInt8(ascii: "t")
            try skipValue(s, &p, depth: depth)
            return .bool(value)
        case UInt8(ascii: "n"):
            try skipValue(s, &p, depth: depth)
            return .null
        default:
            try skipValue(s, &p, depth: depth)
            return .container
        }
    }

    /// The bytes of a scanned string, escapes decoded.
    package static func stringBytes(_ s: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ escaped: Bool) -> [UInt8] {
        let raw = UnsafeBufferPointer(rebasing: s[start..<end])
        guard escaped else { return Array(raw) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        unescape(raw, into: &out)
        return out
    }
}

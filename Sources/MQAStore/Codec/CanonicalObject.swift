import MQABase
import MQAModel

/// A strict reader of the canonical payload JSON the domain stores: an
/// object with no whitespace whose values are strings, `true`, `false` or
/// arrays of strings. Strings are kept as their escaped bytes, so writing
/// the fields back (`render`) reproduces the input byte for byte: anything
/// `parse` accepts round-trips exactly, and anything else is refused (the
/// columnar codec then stores that payload whole).
struct CanonicalObject {
    enum ValueType: UInt8 {
        case string = 0, bool = 1, strings = 2
    }

    struct Field {
        /// The key's bytes between its quotes.
        var key: Range<Int>
        var type: ValueType
        /// A string value's bytes between its quotes.
        var value: Range<Int> = 0..<0
        var flag = false
        /// An array's elements: a range of `items`.
        var items: Range<Int> = 0..<0
    }

    private(set) var fields: [Field] = []
    /// Array elements of all fields, each the bytes between its quotes.
    private(set) var items: [Range<Int>] = []

    /// Reads `p`; false when it is not a canonical object of that shape.
    mutating func parse(_ p: UnsafeRawBufferPointer) -> Bool {
        fields.removeAll(keepingCapacity: true)
        items.removeAll(keepingCapacity: true)
        let end = p.count
        guard end >= 2, p[0] == UInt8(ascii: "{"), p[end - 1] == UInt8(ascii: "}") else { return false }
        var i = 1
        if end == 2 { return true }
        while true {
            guard let key = string(p, &i), i < end, p[i] == UInt8(ascii: ":") else { return false }
            i += 1
            guard i < end else { return false }
            var field = Field(key: key, type: .string)
            switch p[i] {
            case UInt8(ascii: "\""):
                guard let value = string(p, &i) else { return false }
                field.value = value
            case UInt8(ascii: "t"):
                guard literal(p, &i, "true") else { return false }
                field.type = .bool
                field.flag = true
            case UInt8(ascii: "f"):
                guard literal(p, &i, "false") else { return false }
                field.type = .bool
            case UInt8(ascii: "["):
                field.type = .strings
                i += 1
                let first = items.count
                if i < end && p[i] == UInt8(ascii: "]") {
                    i += 1
                } else {
                    while true {
                        guard let item = string(p, &i), i < end else { return false }
                        items.append(item)
                        if p[i] == UInt8(ascii: "]") { i += 1; break }
                        guard p[i] == UInt8(ascii: ",") else { return false }
                        i += 1
                    }
                }
                field.items = first..<items.count
            default:
                return false
            }
            fields.append(field)
            guard i < end else { return false }
            if p[i] == UInt8(ascii: "}") { return i == end - 1 }
            guard p[i] == UInt8(ascii: ",") else { return false }
            i += 1
        }
    }

    /// A quoted string at `i`: its contents, with `i` moved past the
    /// closing quote. Escapes are skipped over, never decoded.
    private func string(_ p: UnsafeRawBufferPointer, _ i: inout Int) -> Range<Int>? {
        guard i < p.count, p[i] == UInt8(ascii: "\"") else { return nil }
        let start = i + 1
        var j = start
        while j < p.count {
            switch p[j] {
            case UInt8(ascii: "\""):
                i = j + 1
                return start..<j
            case UInt8(ascii: "\\"): j += 2
            default: j += 1
            }
        }
        return nil
    }

    private func literal(_ p: UnsafeRawBufferPointer, _ i: inout Int, _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard i + n <= p.count else { return false }
        for k in 0..<n where p[i + k] != word.utf8Start[k] { return false }
        i += n
        return true
    }
}

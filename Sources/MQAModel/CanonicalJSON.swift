import MQABase

/// The canonical JSON text of a payload: its descriptor's fields in the
/// descriptor's order, optional fields left out when absent, strings
/// minimally escaped (`JSON.appendQuoted`, the one quoting rule). It is both
/// the stored form (readable with `json_extract`) and the duplicate key, so
/// two lines that differ only in field order, extra fields or number
/// spelling map to the same text.
///
/// This is the only writer of that text. Ingest feeds it the scanned line
/// (no Strings built), `EventPayload.canonicalJSON` feeds it a payload; a
/// `CanonicalSource` supplies the values either way.
enum CanonicalJSON {
    static func write<S: CanonicalSource>(_ d: EventDescriptor, from source: S, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        d.keyBytes.withUnsafeBufferPointer { keys in
            var keyStart = 0
            for i in 0..<d.tags.count {
                let keyEnd = d.keyEnds[i]
                defer { keyStart = keyEnd }
                guard source.isPresent(i) else { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(contentsOf: UnsafeBufferPointer(rebasing: keys[keyStart..<keyEnd]))
                switch d.tags[i] {
                case 0, 1, 5: source.appendString(i, to: &out)
                case 2: out.append(contentsOf: source.bool(i) ? "true".utf8 : "false".utf8)
                case 3:
                    out.append(UInt8(ascii: "["))
                    source.appendStrings(i, to: &out)
                    out.append(UInt8(ascii: "]"))
                default: source.appendNumber(i, to: &out)
                }
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}

/// Where the canonical writer takes a payload's values from. Field `i` is
/// `descriptor.fields[i]`; only the accessor matching its type is called.
protocol CanonicalSource {
    /// False for an optional field that is absent or `null`.
    func isPresent(_ i: Int) -> Bool
    func appendString(_ i: Int, to out: inout [UInt8])
    func bool(_ i: Int) -> Bool
    /// The elements, quoted and comma-separated, without the brackets.
    func appendStrings(_ i: Int, to out: inout [UInt8])
    func appendNumber(_ i: Int, to out: inout [UInt8])
}

extension EventPayload: CanonicalSource {
    /// The canonical JSON text (see `CanonicalJSON`).
    public var canonicalJSON: String { String(decoding: canonicalBytes, as: UTF8.self) }

    public var canonicalBytes: [UInt8] {
        var out: [UInt8] = []
        CanonicalJSON.write(kind.descriptor, from: self, to: &out)
        return out
    }

    func isPresent(_ i: Int) -> Bool { values[i] != .absent }

    func appendString(_ i: Int, to out: inout [UInt8]) {
        if case .string(let s) = values[i] { JSON.appendQuoted(s.utf8, to: &out) }
    }

    func bool(_ i: Int) -> Bool {
        if case .bool(let b) = values[i] { return b }
        return false
    }

    func appendStrings(_ i: Int, to out: inout [UInt8]) {
        guard case .strings(let list) = values[i] else { return }
        for (k, s) in list.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            JSON.appendQuoted(s.utf8, to: &out)
        }
    }

    func appendNumber(_ i: Int, to out: inout [UInt8]) {
        guard case .number(let d) = values[i] else { return }
        out.append(contentsOf: (d.map { JSON.number($0) } ?? "null").utf8)
    }
}

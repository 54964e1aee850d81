/// Writes one JSON document to an `OutputSink` a piece at a time, byte for
/// byte what `JSON.rendered(pretty:)` makes of the same tree: a report can
/// stream its long lists one element at a time instead of holding the whole
/// tree and its text. (A 2,000-viewer webinar's track report is 340 MB of
/// JSON; built whole it took 2 GB.)
///
/// Open containers with `beginObject`/`beginArray`, give whole values with
/// `value`, close each with `end`, then `finish` (flushes the text left).
/// Members of an object take a key; elements of an array do not.
public struct JSONStreamWriter {
    private let sink: OutputSink
    private let pretty: Bool
    private var text = ""
    /// The open containers, innermost last: whether each is an object, and
    /// how many elements went in so far.
    private var open: [(isObject: Bool, count: Int)] = []
    /// Text is handed to the sink in pieces of about this many bytes.
    private static let flushBytes = 1 << 16

    public init(_ sink: OutputSink, pretty: Bool) {
        self.sink = sink
        self.pretty = pretty
    }

    public mutating func beginObject(key: String? = nil) { begin("{", key) }
    public mutating func beginArray(key: String? = nil) { begin("[", key) }

    /// A whole value: an element, or with `key` an object's member.
    public mutating func value(_ json: JSON, key: String? = nil) {
        separate(key)
        json.write(to: &text, pretty: pretty, indent: open.count)
        flushIfLong()
    }

    /// Closes the innermost container: `[]`/`{}` when nothing went in.
    public mutating func end() {
        precondition(!open.isEmpty, "JSONStreamWriter.end without an open container")
        let (isObject, count) = open.removeLast()
        if count > 0 && pretty { text += "\n" + String(repeating: "  ", count: open.count) }
        text += isObject ? "}" : "]"
        flushIfLong()
    }

    /// Hands the text left to the sink; every container must be closed.
    public mutating func finish() {
        precondition(open.isEmpty, "JSONStreamWriter.finish with \(open.count) open containers")
        sink.write(text)
        text = ""
    }

    private mutating func begin(_ bracket: String, _ key: String?) {
        separate(key)
        text += bracket
        open.append((bracket == "{", 0))
    }

    /// The comma, line break and key that go before an element.
    private mutating func separate(_ key: String?) {
        if let last = open.indices.last {
            if open[last].count > 0 { text += "," }
            open[last].count += 1
            if pretty { text += "\n" + String(repeating: "  ", count: open.count) }
        }
        if let key {
            JSON.quote(key, into: &text)
            text += pretty ? ": " : ":"
        }
    }

    private mutating func flushIfLong() {
        guard text.utf8.count >= Self.flushBytes else { return }
        sink.write(text)
        text.removeAll(keepingCapacity: true)
    }
}

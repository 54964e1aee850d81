import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// What `mqa ingest` prints when it is done, in the spec's terms:
/// `lines = events + rejected + duplicates + ignored`.
public struct IngestReport: Sendable {
    public var summary: IngestSummary
    /// Inputs (files, or folders of `-r`) that could not be read whole:
    /// what they hold is not all stored, and the run exits 1. Counted here
    /// so that a pipeline reading only the JSON or CSV sees the failure
    /// (the counts cover what was stored, which a failed input may not be).
    public var failedFiles: Int

    public init(_ summary: IngestSummary, failedFiles: Int = 0) {
        self.summary = summary
        self.failedFiles = failedFiles
    }

    /// The report in `format`: json, or the text form for any other.
    public func render(_ format: ReportFormat) -> String {
        switch format {
        case .json: json.rendered() + "\n"
        case .csv: csv
        default: text + "\n"
        }
    }

    /// The counts of the JSON as one CSV row under its keys.
    public var csv: String {
        let s = summary
        let counts = [("files", s.files), ("skippedFiles", s.skippedFiles), ("failedFiles", failedFiles), ("lines", s.lines), ("events", s.events),
                      ("reports", s.reports), ("rejected", s.rejected), ("duplicates", s.duplicates), ("ignored", s.ignored)]
        return counts.map(\.0).joined(separator: ",") + "\n" + counts.map { String($0.1) }.joined(separator: ",") + "\n"
    }

    /// The JSON's `schema`.
    public static let schema = "mqa.ingest/1"

    /// The `mqa ingest --format json` shape of `Docs/cli.md`.
    public var json: JSON {
        let s = summary
        return .object([
            ("schema", .string(IngestReport.schema)),
            ("files", .int(Int64(s.files))), ("skippedFiles", .int(Int64(s.skippedFiles))),
            ("failedFiles", .int(Int64(failedFiles))),
            ("lines", .int(Int64(s.lines))), ("events", .int(Int64(s.events))), ("reports", .int(Int64(s.reports))),
            ("rejected", .int(Int64(s.rejected))), ("duplicates", .int(Int64(s.duplicates))),
            ("ignored", .int(Int64(s.ignored))),
        ] + (s.contextLines > 0 ? [("contextLines", .int(Int64(s.contextLines)))] : []) + [
            ("formats", .object(s.formats.keys.sorted().map { name in
                let f = s.formats[name]!
                return (name, .object([
                    ("files", .int(Int64(f.files))), ("connections", .int(Int64(f.connections))),
                    ("samples", .int(Int64(f.samples))), ("events", .int(Int64(f.events))),
                ]))
            })),
            ("skippedConnections", .array(s.skippedConnections.map {
                .object([("file", .string($0.file)), ("connection", .string($0.connection)), ("reason", .string($0.reason))])
            })),
            ("connectionContexts", .array(s.connectionContexts.filter(\.hasFigures).map { c in .object([("file", .string(c.file))] + c.jsonFields) })),
        ])
    }

    /// Aligned `label  value` lines, without a final newline.
    public var text: String {
        let s = summary
        return """
            files       \(s.files) (\(s.skippedFiles) skipped: content already ingested)\(failedFiles > 0 ? "; \(failedFiles) failed (see the errors)" : "")
            lines       \(s.lines)
            events      \(s.events) stored (\(s.reports) quality reports)
            rejected    \(s.rejected)\(s.rejected > 0 ? "  (see `mqa query rejects`)" : "")
            duplicates  \(s.duplicates)
            ignored     \(s.ignored) (unknown event names\(s.contextLines > 0 ? "; \(s.contextLines) of them mqa's connection context lines, kept" : ""))
            """ + formatsText
    }

    /// `relay/tls` → `relay/tls (TURN)`; a TCP path says so.
    static func describePath(_ p: String) -> String {
        if p.hasPrefix("relay/") { return p + " (TURN)" }
        return p
    }

    private var formatsText: String {
        let s = summary
        var text = ""
        // A line per format only when a dump was among the inputs: for plain
        // event logs it would repeat the files line.
        let onlyLogs = s.formats.keys.allSatisfy { $0 == InputFormat.events.rawValue } && s.skippedConnections.isEmpty
        for name in s.formats.keys.sorted() where !onlyLogs {
            let f = s.formats[name]!
            let label = "\(name):"
            text += "\n" + label + String(repeating: " ", count: max(1, 12 - label.count)) + "\(f.files) files"
            if name != InputFormat.events.rawValue {
                text += ", \(f.connections) connections, \(f.samples) samples, \(f.events) events"
            }
        }
        // A connection id and the reason (which may quote the dump) come
        // from the input, like the file name: none may drive the terminal.
        for c in s.skippedConnections {
            text += "\nskipped     \(TerminalText.escaped(c.file)) connection "
                + "\(c.connection.isEmpty ? "-" : TerminalText.escaped(c.connection)): \(TerminalText.escaped(c.reason))"
        }
        // A context of names alone (`knownAs`) has nothing to show here.
        for c in s.connectionContexts where c.hasFigures {
            var parts: [String] = []
            if !c.paths.isEmpty { parts.append("path " + c.paths.map(IngestReport.describePath).joined(separator: " → ")) }
            if let limits = c.limitsText { parts.append("sent video limited by " + limits) }
            if let x = c.concealment { parts.append("received audio concealed \(JSON.number((x * 10_000).rounded() / 100)) %") }
            text += "\ncontext     \(TerminalText.escaped(c.file)) connection \(TerminalText.escaped(c.connection)): "
                + TerminalText.escaped(parts.joined(separator: " · "))
        }
        return text
    }
}

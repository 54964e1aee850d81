import Foundation

/// What an ingest did, in the spec's terms:
/// `lines = events + rejected + duplicates + ignored`.
public struct IngestSummary: Equatable, Sendable {
    public var files = 0
    public var skippedFiles = 0
    /// Non-blank lines read.
    public var lines = 0
    /// Events stored, quality reports included.
    public var events = 0
    public var reports = 0
    public var rejected = 0
    public var duplicates = 0
    public var ignored = 0
    /// Per content format (`events`, `rtcstats`, `webrtc-internals`): files,
    /// and for dumps the connections, samples and events they converted to.
    public var formats: [String: FormatCounts] = [:]
    /// Dump connections that gave no events, with the reason.
    public var skippedConnections: [SkippedConnection] = []

    public init() {}

    /// Counts of one input format.
    public struct FormatCounts: Equatable, Sendable {
        public var files = 0
        public var connections = 0
        public var samples = 0
        /// Events the conversion produced (before dedupe; `events` above
        /// counts those stored).
        public var events = 0

        static func + (a: FormatCounts, b: FormatCounts) -> FormatCounts {
            FormatCounts(files: a.files + b.files, connections: a.connections + b.connections,
                         samples: a.samples + b.samples, events: a.events + b.events)
        }
    }

    public var json: JSON {
        .object([
            ("files", .int(Int64(files))), ("skippedFiles", .int(Int64(skippedFiles))),
            ("lines", .int(Int64(lines))), ("events", .int(Int64(events))), ("reports", .int(Int64(reports))),
            ("rejected", .int(Int64(rejected))), ("duplicates", .int(Int64(duplicates))),
            ("ignored", .int(Int64(ignored))),
            ("formats", .object(formats.keys.sorted().map { name in
                let f = formats[name]!
                return (name, .object([
                    ("files", .int(Int64(f.files))), ("connections", .int(Int64(f.connections))),
                    ("samples", .int(Int64(f.samples))), ("events", .int(Int64(f.events))),
                ]))
            })),
            ("skippedConnections", .array(skippedConnections.map {
                .object([("file", .string($0.file)), ("connection", .string($0.connection)), ("reason", .string($0.reason))])
            })),
        ])
    }

    public var text: String {
        """
        files       \(files) (\(skippedFiles) skipped: content already ingested)
        lines       \(lines)
        events      \(events) stored (\(reports) quality reports)
        rejected    \(rejected)\(rejected > 0 ? "  (see `mqa query rejects`)" : "")
        duplicates  \(duplicates)
        ignored     \(ignored) (unknown event names)
        """ + formatsText
    }

    private var formatsText: String {
        var text = ""
        // A line per format only when a dump was among the inputs: for plain
        // event logs it would repeat the files line.
        let onlyLogs = formats.keys.allSatisfy { $0 == InputFormat.events.rawValue } && skippedConnections.isEmpty
        for name in formats.keys.sorted() where !onlyLogs {
            let f = formats[name]!
            let label = "\(name):"
            text += "\n" + label + String(repeating: " ", count: max(1, 12 - label.count)) + "\(f.files) files"
            if name != InputFormat.events.rawValue {
                text += ", \(f.connections) connections, \(f.samples) samples, \(f.events) events"
            }
        }
        for s in skippedConnections {
            text += "\nskipped     \(TerminalText.escaped(s.file)) connection \(s.connection.isEmpty ? "-" : s.connection): \(s.reason)"
        }
        return text
    }

    static func + (a: IngestSummary, b: IngestSummary) -> IngestSummary {
        var s = a
        s.files += b.files
        s.skippedFiles += b.skippedFiles
        s.lines += b.lines
        s.events += b.events
        s.reports += b.reports
        s.rejected += b.rejected
        s.duplicates += b.duplicates
        s.ignored += b.ignored
        s.formats.merge(b.formats) { $0 + $1 }
        s.skippedConnections += b.skippedConnections
        return s
    }
}

/// One rejected line, as reported on stderr (`FILE:LINE: reason`).
public struct RejectedLine: Sendable {
    public var file: String
    public var line: Int
    public var reason: String
}

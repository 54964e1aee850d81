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

    public init() {}

    public var json: JSON {
        .object([
            ("files", .int(Int64(files))), ("skippedFiles", .int(Int64(skippedFiles))),
            ("lines", .int(Int64(lines))), ("events", .int(Int64(events))), ("reports", .int(Int64(reports))),
            ("rejected", .int(Int64(rejected))), ("duplicates", .int(Int64(duplicates))),
            ("ignored", .int(Int64(ignored))),
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
        """
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
        return s
    }
}

/// One rejected line, as reported on stderr (`FILE:LINE: reason`).
public struct RejectedLine: Sendable {
    public var file: String
    public var line: Int
    public var reason: String
}

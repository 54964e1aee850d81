import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// `mqa meetings`: the stored meetings, in the order given (newest first),
/// with the fleet ranking's score.
public struct MeetingListReport: Sendable {
    public var entries: [FleetEntry]

    public init(_ entries: [FleetEntry]) { self.entries = entries }

    /// The report in `format`: md, json or csv.
    public func render(_ format: ReportFormat) -> String {
        switch format {
        case .json: json.rendered(pretty: true) + "\n"
        case .csv: csv
        case .md, .html: markdown
        }
    }

    public var json: JSON {
        .array(entries.map { e in
            .object([
                ("meeting", .string(e.header.meeting)), ("title", .optional(e.header.title)), ("engine", .optional(e.header.engine)),
                ("start", .optional(e.header.start)), ("durationMs", .optional(e.header.durationMs)),
                ("participants", .int(Int64(e.header.participants))), ("score", .double(e.score)),
            ])
        })
    }

    /// Exact figures: times and durations in ms, the score unrounded.
    public var csv: String {
        var t = ReportTable(headers: ["meeting", "start", "durationMs", "participants", "score", "title"])
        for e in entries {
            t.add([.text(e.header.meeting), .int(e.header.start, none: ""), .int(e.header.durationMs, none: ""), .int(e.header.participants),
                   .number(.double(e.score), shown: CSV.number(e.score)), .text(e.header.title ?? "")])
        }
        return t.csv
    }

    /// Times and durations to read, the score to 0.1.
    public var markdown: String {
        var t = ReportTable(headers: ["meeting", "start (UTC)", "duration", "participants", "score", "title"], numeric: [2, 3, 4])
        for e in entries {
            t.add([.text(e.header.meeting), .text(e.header.start.map { Time.iso($0) } ?? "—"), .text(e.header.durationMs.map { Time.duration($0) } ?? "—"),
                   .int(e.header.participants), .number(.double(e.score), shown: JSON.number((e.score * 10).rounded() / 10)),
                   .text(e.header.title ?? "—")])
        }
        return t.markdown
    }
}

import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// `mqa meetings`: the stored meetings, in the order given (newest first),
/// with the fleet ranking's score.
public struct MeetingListReport: Sendable {
    /// The JSON's `schema`.
    public static let schema = "mqa.meetings/1"

    public var entries: [FleetEntry]
    /// How start times are written in md (UTC, and local with a zone).
    public var display = TimeDisplay()
    /// What the list was narrowed to, said above it (and in JSON).
    public var filter = Filter()
    /// The tier config the scores were made under (as `FleetReport.config`).
    public var config = TierConfig()

    /// `mqa meetings --uid U --at T`: the uid resolved, the instant, or
    /// the time of day (`14:05:00`) matched on each meeting's date.
    public struct Filter: Sendable, Equatable {
        public var uid: String?
        public var at: Int64?
        public var timeOfDay: String?

        public init(uid: String? = nil, at: Int64? = nil, timeOfDay: String? = nil) {
            self.uid = uid
            self.at = at
            self.timeOfDay = timeOfDay
        }
    }

    public init(_ entries: [FleetEntry]) { self.entries = entries }

    /// The report in `format`: md, json or csv.
    public func render(_ format: ReportFormat) -> String {
        switch format {
        case .json: json.rendered(pretty: true) + "\n"
        case .csv: csv
        case .md, .html: markdown
        }
    }

    /// `{"schema", "uid", "at", "meetings", "list": [...]}`: `meetings`
    /// is the count, as in every JSON of mqa, and `list` the meetings,
    /// newest first; `uid` and `at` are null when not asked for, and a
    /// time of day asked for is `atTimeOfDay` (`"14:05:00"`) in `zone`.
    public var json: JSON {
        .object([
            ("schema", .string(MeetingListReport.schema)),
        ] + config.jsonMember("config") + [
            ("uid", .optional(filter.uid)),
            ("at", .optional(filter.at)),
        ] + (filter.timeOfDay.map { [("atTimeOfDay", JSON.string($0)), ("zone", JSON.string(zoneName))] } ?? []) + [
            ("meetings", .int(Int64(entries.count))),
            ("list", .array(entries.map { e in
                .object([
                    ("meeting", .string(e.header.meeting)), ("title", .optional(e.header.title)), ("engine", .optional(e.header.engine)),
                    ("start", .optional(e.header.start)), ("end", .optional(e.header.end)), ("durationMs", .optional(e.header.durationMs)),
                    ("participants", .int(Int64(e.header.participants))), ("score", .double(FleetReport.rounded(e.score))),
                ])
            })),
        ])
    }

    /// The zone a time of day was read in (`UTC` without one).
    var zoneName: String { display.clockZone.identifier }

    /// Times and durations in ms, the score to 0.1 (as the fleet shows it);
    /// every key of the JSON's list, `engine` last (added after the rest).
    public var csv: String {
        var t = ReportTable(headers: ["meeting", "start", "end", "durationMs", "participants", "score", "title", "engine"])
        for e in entries {
            t.add([.text(e.header.meeting), .int(e.header.start, none: ""), .int(e.header.end, none: ""), .int(e.header.durationMs, none: ""),
                   .int(e.header.participants), .number(.double(FleetReport.rounded(e.score)), shown: CSV.number(FleetReport.rounded(e.score))),
                   .text(e.header.title ?? ""), .text(e.header.engine ?? "")])
        }
        return t.csv
    }

    /// Times and durations to read, the score to 0.1; with a zone, a
    /// local start column beside the UTC one.
    public var markdown: String {
        var headers = ["meeting", "start (UTC)"]
        if let zone = display.zone { headers.append("start (\(zone.identifier))") }
        headers += ["duration", "participants", "score", "title"]
        let local = display.zone == nil ? 0 : 1
        var t = ReportTable(headers: headers, numeric: [2 + local, 3 + local, 4 + local])
        for e in entries {
            var cells: [ReportCell] = [.text(e.header.meeting), .text(e.header.start.map { Time.iso($0) } ?? "—")]
            if let zone = display.zone {
                cells.append(.text(e.header.start.map { zone.dateTime($0) + " " + zone.offsetText(at: $0) } ?? "—"))
            }
            cells += [.text(e.header.durationMs.map { Time.duration($0) } ?? "—"),
                      .int(e.header.participants), .number(.double(e.score), shown: JSON.number(FleetReport.rounded(e.score))),
                      .text(e.header.title ?? "—")]
            t.add(cells)
        }
        var out = ConfigNote.paragraph(config)
        if filter.uid != nil || filter.at != nil || filter.timeOfDay != nil {
            var what: [String] = []
            if let uid = filter.uid { what.append("with \(Markdown.escape(uid))") }
            if let at = filter.at { what.append("running at \(display.timestamp(at))") }
            if let clock = filter.timeOfDay {
                what.append("running at \(clock) \(display.zone?.identifier ?? "UTC") on their date")
            }
            out += entries.isEmpty ? "No meetings \(what.joined(separator: ", ")).\n" : "Meetings \(what.joined(separator: ", ")):\n\n"
            if entries.isEmpty { return out }
        }
        return out + t.markdown
    }
}

import Foundation
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// `mqa tune`: tier configs ranked by how well their alarms foretold the
/// stalls (from one sweep or from merged partials).
public struct TuneReport: Sendable {
    /// Ranked, best first.
    public var results: [TuningResult]
    /// The grid's keys: one column each.
    public var keys: [String]
    public var figures: Figures
    /// Rows shown in md and csv (json has them all).
    public var top: Int
    /// The values of the keys the grid leaves out (`--config`).
    public var base = TierConfig()

    /// The JSON's `schema`.
    public static let schema = "mqa.tune/1"

    /// `{"schema", "target", "leadMs", "configs": [...]}`, every config,
    /// best first.
    public var json: JSON {
        .object([
            ("schema", .string(TuneReport.schema)),
        ] + base.jsonMember("base") + [
            ("target", .string(figures.options.target.name)), ("leadMs", .int(figures.options.leadMs)),
            ("configs", results.json),
        ])
    }

    /// What the md header says about the sweep.
    public struct Figures: Sendable {
        public var configs: Int
        public var stalls: Int
        public var reports: Int
        public var connections: Int
        public var options: TuningOptions

        public init(configs: Int, stalls: Int, reports: Int, connections: Int, options: TuningOptions) {
            self.configs = configs
            self.stalls = stalls
            self.reports = reports
            self.connections = connections
            self.options = options
        }
    }

    public init(_ results: [TuningResult], keys: [String], figures: Figures, top: Int = .max) {
        self.results = results
        self.keys = keys
        self.figures = figures
        self.top = top
    }

    /// The report in `format`: md, json or csv.
    public func render(_ format: ReportFormat) -> String {
        switch format {
        case .json: json.rendered(pretty: true) + "\n"
        case .csv: csv
        case .md, .html: markdown
        }
    }

    /// One row per config, figures rounded as in the JSON. The counts the
    /// JSON has beside them (`flaps`, `warmMs`, `gridIndex`) come last, so
    /// that the columns before keep their places.
    public var csv: String {
        let columns = ["rank"] + keys + ["alarms", "stalls", "covered", "useful", "precision", "recall", "f1",
                                         "alarmsPerHour", "flapsPerHour", "medianLeadMs", "pareto", "flaps", "warmMs", "gridIndex"]
        var t = ReportTable(headers: columns)
        for (rank, r) in results.prefix(top).enumerated() {
            t.add([.int(rank + 1)] + keys.map { .literal(TuneReport.value(of: $0, in: r.config, bareStrings: true)) } + TuneReport.cells(r)
                  + [.literal(r.pareto ? "true" : "false"), .int(r.score.flaps), .int(Int(r.score.warmMs)), .int(r.gridIndex)])
        }
        return t.csv
    }

    /// Rounded figures; `*` marks the Pareto front.
    public var markdown: String {
        let options = figures.options
        var out = "# Tuning: \(figures.configs.counted("config")) against \(figures.stalls.counted("stall"))\n\n"
        out += "Target tier \(options.target.name), lead \(options.leadMs) ms, \(figures.reports.counted("report")) in \(figures.connections.counted("connection")). `*` marks the Pareto front (recall vs alarms/hour).\n\n"
        out += ConfigNote.baseParagraph(base, gridKeys: keys)
        var t = ReportTable(
            headers: ["#", ""] + keys + ["alarms", "stalls", "covered", "useful", "precision", "recall", "F1",
                                        "alarms/h", "flaps/h", "median lead"],
            numeric: Set(0..<1).union(Set((2 + keys.count)..<(12 + keys.count))))
        for (rank, r) in results.prefix(top).enumerated() {
            // Config values are JSON text: their brackets are not Markdown.
            t.add([.int(rank + 1), .literal(r.pareto ? "*" : "")] + keys.map { .literal(TuneReport.value(of: $0, in: r.config)) }
                  + TuneReport.cells(r, rounded: true))
        }
        return out + t.markdown + silentFrontNote
    }

    /// Front configs that cover stalls without a single alarm: every
    /// poor (target) hold they cover with began from `unknown` (a
    /// connection's first warm report, or after a gap), and a change from
    /// `unknown` is no alarm (tiers.md), so they sit on the front at 0
    /// alarms/hour without ever foreseeing a stall. Said under the table,
    /// for the rows it shows (thresholds of [10, 9, 8, 7] were the front's
    /// only config in a review).
    var silentFrontNote: String {
        let silent = results.prefix(top).enumerated().filter {
            $0.element.pareto && $0.element.score.alarms == 0 && $0.element.score.covered > 0
        }
        guard !silent.isEmpty else { return "" }
        let ranks = silent.prefix(5).map { "#\($0.offset + 1)" }.joined(separator: ", ") + (silent.count > 5 ? ", …" : "")
        let one = silent.count == 1
        return "\n\(one ? "1 config" : "\(silent.count) configs") on the front (\(ranks)) "
            + "\(one ? "covers" : "cover") stalls without raising one alarm: only through tiers entered from unknown (a "
            + "connection's first warm report, or after a reporting gap), and a change from unknown is no alarm. "
            + "\(one ? "It is" : "They are") on the front because 0 alarms/hour cannot be beaten, not for foreseeing a stall.\n"
    }

    /// The score's figures: exact, or rounded for reading.
    static func cells(_ r: TuningResult, rounded: Bool = false) -> [ReportCell] {
        let s = r.score
        // The table shows a few digits; the CSV rounds as the JSON does
        // (cli.md: numbers rounded to their meaning).
        func f(_ v: Double, _ format: String, _ places: Int) -> ReportCell {
            guard rounded else { return csvCell(v, places: places) }
            return v.isFinite ? .number(.double(v), shown: String(format: format, v)) : .number(.null, shown: "∞")
        }
        let lead: ReportCell = s.medianLeadMs.map { .number(.int($0), shown: rounded ? Time.duration($0) : String($0)) } ?? .empty(shown: "")
        return [.int(s.alarms), .int(s.stalls), .int(s.covered), .int(s.useful),
                f(s.precision, "%.3f", JSON.Places.ratio), f(s.recall, "%.3f", JSON.Places.ratio), f(s.f1, "%.3f", JSON.Places.ratio),
                f(s.alarmsPerHour, "%.2f", JSON.Places.perHour), f(s.flapsPerHour, "%.2f", JSON.Places.perHour), lead]
    }

    /// `v` as the JSON outputs write it, rounded to `places`.
    static func csvNumber(_ v: Double, places: Int) -> String { JSON.rounded(v, places: places).rendered() }

    /// A score figure's CSV cell, rounded as the JSON is; alarms in no warm
    /// time are +∞ an hour: empty here, null in JSON.
    static func csvCell(_ v: Double, places: Int) -> ReportCell {
        v.isFinite ? .number(.double(v), shown: csvNumber(v, places: places)) : .number(.null, shown: "")
    }

    /// A config key's value as compact JSON text, for the table columns.
    /// A config value as JSON text (`[4,3.6,3.1,2.6]`, `0.2`); with
    /// `bareStrings` a string as itself (CSV: `emodel`, not `"emodel"`,
    /// which a spreadsheet showed with its quotes).
    static func value(of key: String, in config: TierConfig, bareStrings: Bool = false) -> String {
        guard case .object(let fields) = config.json, let v = fields.first(where: { $0.0 == key })?.1 else { return "" }
        if bareStrings, case .string(let text) = v { return text }
        return v.rendered()
    }
}

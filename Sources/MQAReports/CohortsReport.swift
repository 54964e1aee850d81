import Foundation
import MQABase
import MQAModel
import MQAAnalysis

/// `mqa report cohorts --by FIELD`: each value's figures with their 95 %
/// intervals, worst stall rate first (`Docs/cohorts.md`).
public struct CohortsReport: RenderedReport, Sendable {
    public var table: CohortTable
    /// The tier config the time at poor/bad and MOS were made under;
    /// shown, and in the JSON, only where it is not the defaults.
    public var config = TierConfig()

    public init(_ table: CohortTable) { self.table = table }

    /// The JSON shape of `shared/spec/cli.md` (additions version 3), plus
    /// the intervals' method and each cohort's `insufficient` flag.
    public var json: JSON {
        .object([
            ("schema", .string("mqa.cohorts/1")),
        ] + config.jsonMember("config") + [
            ("by", .string(table.field.rawValue)),
            ("meetings", .int(Int64(table.meetings))),
            // People once each; the cohorts' participants add up to more,
            // one per value for those whose value changed in a meeting.
            ("participants", .int(Int64(table.people))),
            ("changedValue", .int(Int64(table.splitParticipants))),
            // The same count, by its first name (netType only).
            ("changedNetwork", .int(Int64(table.field == .netType ? table.splitParticipants : 0))),
            ("method", CohortsReport.methodJSON(table.options)),
            ("cohorts", .array(table.cohorts.map(CohortsReport.json))),
            ("unknown", CohortsReport.json(table.unknown)),
        ])
    }

    /// One cohort's object (also `compare`'s `cohorts`).
    static func json(_ f: CohortFigures) -> JSON {
        .object([
            ("value", .optional(f.value)),
            ("participants", .int(Int64(f.participants))),
            ("meetings", .int(Int64(f.meetings))),
            ("watchedMs", .int(f.watchedMs)),
            ("stalledMs", .int(f.stalledMs)),
            ("stallRate", rate(f.stallRate)),
            ("stallRateCI", interval(f.stallRateCI)),
            ("lowTierShare", rate(f.lowTierShare)),
            ("lowTierShareCI", interval(f.lowTierShareCI)),
            ("mosP50", f.mosP50.map { .double(rounded($0, 100)) } ?? .null),
            ("abnormalDisconnectRate", rate(f.abnormalDisconnectRate)),
            ("abnormalDisconnectRateCI", interval(f.abnormalDisconnectRateCI)),
            ("firstFrameP90Ms", .optional(f.firstFrameP90Ms)),
            ("subscriptions", .optional(f.subscriptions)),
            ("neverRendered", .optional(f.neverRendered)),
            ("neverRenderedShare", rate(f.neverRenderedShare)),
            ("neverRenderedShareCI", interval(f.neverRenderedShareCI)),
            ("insufficient", .bool(f.insufficient)),
        ])
    }

    static func methodJSON(_ o: BootstrapOptions) -> JSON {
        .object([
            ("interval", .string("95 % percentile bootstrap, resampling meetings")),
            ("replicates", .int(Int64(o.replicates))),
            ("seed", .int(Int64(bitPattern: o.seed))),
            ("minMeetings", .int(Int64(o.minMeetings))),
            ("minParticipants", .int(Int64(o.minParticipants))),
        ])
    }

    /// Rates to 1e-5 (a thousandth of a percent): more digits are noise.
    static func rate(_ x: Double?) -> JSON { x.map { .double(rounded($0, 100_000)) } ?? .null }

    static func interval(_ ci: ConfidenceInterval?, scale: Double = 100_000) -> JSON {
        guard let ci else { return .null }
        return ConfidenceInterval(lower: rounded(ci.lower, scale), upper: rounded(ci.upper, scale)).json
    }

    static func rounded(_ x: Double, _ scale: Double) -> Double { x.isFinite ? (x * scale).rounded() / scale : x }

    // MARK: - Text

    /// `1.23 %`.
    static func percent(_ x: Double?) -> String {
        guard let x else { return "—" }
        return String(format: "%.2f %%", x * 100)
    }

    /// `1.23 % (1.01–1.50)`.
    static func percent(_ x: Double?, _ ci: ConfidenceInterval?) -> String {
        guard let x else { return "—" }
        guard let ci else { return percent(x) }
        return String(format: "%.2f %% (%.2f–%.2f)", x * 100, ci.lower * 100, ci.upper * 100)
    }

    static func hours(_ ms: Int64) -> String { String(format: "%.1f h", Double(ms) / 3_600_000) }

    /// The table md and html show: one row per value, then "(unknown)".
    var rowsTable: ReportTable {
        var t = ReportTable(headers: [table.field.rawValue, "people", "meetings", "watched", "stall rate (95 % CI)",
                                      "poor/bad (95 % CI)", "MOS p50", "abn. disconnects (95 % CI)", "first frame p90",
                                      "never rendered (95 % CI)", "note"],
                            numeric: [1, 2, 3, 4, 5, 6, 7, 8, 9])
        for f in table.cohorts + (table.unknown.participants > 0 ? [table.unknown] : []) {
            t.add(CohortsReport.cells(f), htmlClass: f.insufficient ? "insufficient" : nil)
        }
        return t
    }

    static func cells(_ f: CohortFigures) -> [ReportCell] {
        [f.value.map(ReportCell.text) ?? .literal("(unknown)"), .int(f.participants), .int(f.meetings),
         .number(.int(f.watchedMs), shown: hours(f.watchedMs)),
         .number(rate(f.stallRate), shown: percent(f.stallRate, f.stallRateCI)),
         .number(rate(f.lowTierShare), shown: percent(f.lowTierShare, f.lowTierShareCI)),
         f.mosP50.map { .number(.double(rounded($0, 100)), shown: String(format: "%.2f", $0)) } ?? .empty(shown: "—"),
         .number(rate(f.abnormalDisconnectRate), shown: percent(f.abnormalDisconnectRate, f.abnormalDisconnectRateCI)),
         f.firstFrameP90Ms.map { .number(.int($0), shown: Time.duration($0)) } ?? .empty(shown: "—"),
         .number(rate(f.neverRenderedShare), shown: percent(f.neverRenderedShare, f.neverRenderedShareCI)),
         .literal(f.insufficient ? "too little data" : "")]
    }

    var heading: String {
        let n = table.splitParticipants
        let split = n == 0 ? ""
            : table.field == .netType ? " (\(n) changed network: each counts on every network it used)"
            : " (\(n) changed \(table.field.rawValue) between joins: each counts under every value it had)"
        return "Cohorts by \(table.field.rawValue): \(table.meetings) meetings, \(table.people) participants\(split)"
    }

    /// The method in words, under every text format's table.
    static func methodText(_ o: BootstrapOptions, splits: Bool = false) -> String {
        "Stall rate = stalled / watched video time; poor/bad = share of warm time at those tiers; abnormal disconnects = "
            + "share of participants with a disconnect that carried an error; MOS p50 = median of the participants' median MOS; "
            + "never rendered = share of video subscriptions that showed no frame (they add no watched time). "
            + "Intervals: 95 % percentile bootstrap over meetings (\(o.replicates) resamples, seed \(o.seed)), since "
            + "participants of one meeting are not independent. A value seen in fewer than \(o.minMeetings) meetings or by "
            + "fewer than \(o.minParticipants) participants is marked \"too little data\" and listed last. "
            + (splits ? splitNote + " " : "") + "See Docs/cohorts.md."
    }

    /// How a client field is read per moment, in words.
    static let splitNote = "By a client field, each figure counts under the value that held when it was measured (the "
        + "last join naming it, or for netType the last network_change, before it): a participant who changed network, "
        + "or rejoined as another client, counts once under each value it had."


    public var markdown: String {
        var out = "# \(heading)\n\n" + ConfigNote.paragraph(config) + "Worst stall rate first.\n\n"
        out += rowsTable.markdown
        return out + "\n" + CohortsReport.methodText(table.options, splits: table.field.changesInCall) + "\n"
    }

    public var csv: String {
        CohortsReport.csvTable((table.cohorts + [table.unknown]).map { ([], $0, []) }, leading: [], value: true).csv
    }

    /// The CSV rows of `rows`' figures, each after its `leading` cells
    /// (under the `leading` headers); `value`: with the value column.
    /// The figures' columns between a report's `leading` and `trailing`
    /// ones, and the never-rendered ones after those: each group was added
    /// after the ones before it, which keep their places.
    static func csvTable(_ rows: [(leading: [ReportCell], figures: CohortFigures, trailing: [ReportCell])], leading: [String],
                         value: Bool, trailing: [String] = []) -> ReportTable {
        var t = ReportTable(headers: leading + (value ? ["value"] : []) + [
            "participants", "meetings", "watchedMs", "stalledMs", "stallRate", "stallRateLow", "stallRateHigh",
            "lowTierShare", "lowTierShareLow", "lowTierShareHigh", "mosP50", "abnormalDisconnectRate",
            "abnormalDisconnectRateLow", "abnormalDisconnectRateHigh", "firstFrameP90Ms", "insufficient",
        ] + trailing + ["subscriptions", "neverRendered", "neverRenderedShare", "neverRenderedShareLow", "neverRenderedShareHigh"])
        func n(_ j: JSON) -> ReportCell { j == .null ? .empty(shown: "") : .number(j, shown: j.rendered()) }
        func ends(_ ci: ConfidenceInterval?) -> [ReportCell] {
            guard let ci else { return [.empty(shown: ""), .empty(shown: "")] }
            return [n(CohortsReport.rate(ci.lower)), n(CohortsReport.rate(ci.upper))]
        }
        for (cells, f, after) in rows {
            var row = cells
            if value { row.append(f.value.map(ReportCell.text) ?? .empty(shown: "")) }
            row += [.int(f.participants), .int(f.meetings), .int(f.watchedMs), .int(f.stalledMs)]
            row += [n(CohortsReport.rate(f.stallRate))] + ends(f.stallRateCI)
            row += [n(CohortsReport.rate(f.lowTierShare))] + ends(f.lowTierShareCI)
            row += [n(f.mosP50.map { .double(CohortsReport.rounded($0, 100)) } ?? .null)]
            row += [n(CohortsReport.rate(f.abnormalDisconnectRate))] + ends(f.abnormalDisconnectRateCI)
            row += [n(.optional(f.firstFrameP90Ms)), .literal(f.insufficient ? "true" : "false")]
            t.add(row + after + [n(.optional(f.subscriptions)), n(.optional(f.neverRendered)),
                                 n(CohortsReport.rate(f.neverRenderedShare))] + ends(f.neverRenderedShareCI))
        }
        return t
    }

    public var html: String {
        var body = "<h1>\(heading.html)</h1>\n" + ConfigNote.htmlParagraph(config) + "<p>Worst stall rate first.</p>\n"
        body += CohortChart.stallRates(table.cohorts + (table.unknown.participants > 0 ? [table.unknown] : []))
        body += rowsTable.html
        body += "<p>\(CohortsReport.methodText(table.options, splits: table.field.changesInCall).html)</p>\n"
        return HTMLPage.document(title: heading, body: body)
    }
}

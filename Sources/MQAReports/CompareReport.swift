import Foundation
import MQABase
import MQAModel
import MQAAnalysis

/// `mqa compare --by FIELD A B`: the two cohorts' figures side by side,
/// the ratio B/A with its 95 % interval, Holm-corrected significance per
/// metric, and a one-line verdict.
public struct CompareReport: RenderedReport, Sendable {
    public var comparison: CohortComparison

    /// As `CohortsReport.config`.
    public var config = TierConfig()

    public init(_ comparison: CohortComparison) { self.comparison = comparison }

    /// The spec's shape (`{"by", "a", "b", "metrics": {NAME: {"a", "b",
    /// "ratio", "ratioCI", "significant"}}, "verdict"}`), each metric also
    /// with its p-values, and the two cohorts' full figures.
    public var json: JSON {
        let c = comparison
        return .object([
            ("schema", .string("mqa.compare/1")),
        ] + config.jsonMember("config") + [
            ("by", .string(c.field.rawValue)),
            ("a", .optional(c.a.value)),
            ("b", .optional(c.b.value)),
            ("metrics", .object(c.metrics.map { m in
                (m.metric.rawValue, .object([
                    ("a", value(m.metric, m.a)),
                    ("b", value(m.metric, m.b)),
                    ("ratio", m.ratio.map { .double(CohortsReport.rounded($0, 1000)) } ?? .null),
                    ("ratioCI", CohortsReport.interval(m.ratioCI, scale: 1000)),
                    ("significant", .bool(m.significant)),
                    ("p", CompareReport.p(m, m.p)),
                    ("pAdjusted", CompareReport.p(m, m.pAdjusted)),
                    ("worse", .bool(m.worse)),
                ]))
            })),
            ("verdict", .string(c.verdict)),
            ("failsGate", .bool(c.failsGate)),
            ("margin", .double(c.margin)),
            ("cohorts", .object([("a", CohortsReport.json(c.a)), ("b", CohortsReport.json(c.b))])),
            ("method", CompareReport.methodJSON(c.options)),
        ])
    }

    static func methodJSON(_ o: BootstrapOptions) -> JSON {
        guard case .object(var fields) = CohortsReport.methodJSON(o) else { return .null }
        fields.append(("correction", .string("Holm over the \(CohortMetric.allCases.count) metrics, family-wise α 0.05")))
        return .object(fields)
    }

    func value(_ metric: CohortMetric, _ x: Double?) -> JSON {
        guard let x else { return .null }
        switch metric {
        case .firstFrameP90Ms: return .int(Int64(x))
        case .mosP50: return .double(CohortsReport.rounded(x, 100))
        default: return CohortsReport.rate(x)
        }
    }

    func shown(_ metric: CohortMetric, _ x: Double?) -> String {
        guard let x else { return "—" }
        switch metric {
        case .firstFrameP90Ms: return Time.duration(Int64(x))
        case .mosP50: return String(format: "%.2f", x)
        default: return CohortsReport.percent(x)
        }
    }

    var heading: String {
        let c = comparison
        return "\(c.field.rawValue): \(c.b.value ?? "unknown") vs \(c.a.value ?? "unknown")"
    }

    /// A metric's p (or adjusted p), null where a side has no figure: no
    /// test was made (it enters Holm's count as 1, which only makes the
    /// others' adjustment stricter).
    static func p(_ m: CohortComparison.Metric, _ value: Double) -> JSON {
        m.tested ? .double(CohortsReport.rounded(value, 10_000)) : .null
    }

    /// The table md and html show.
    var metricsTable: ReportTable {
        let c = comparison
        var t = ReportTable(headers: ["metric", "A: \(c.a.value ?? "unknown")", "B: \(c.b.value ?? "unknown")", "B/A",
                                      "95 % CI", "p (Holm)", "significant"], numeric: [1, 2, 3, 4, 5])
        for m in c.metrics {
            let pair = m.ratio.flatMap { r in m.ratioCI.map { CohortComparison.shown(r, $0) } }
            let ratio = m.ratio.map { ReportCell.number(.double($0), shown: pair?.0 ?? CohortComparison.shown($0)) } ?? .empty(shown: "—")
            let ci = pair.map { ReportCell.literal($0.1) } ?? .empty(shown: "—")
            let mark = m.significant ? (m.worse ? "yes, B worse" : "yes, B better") : "no"
            t.add([.text(m.metric.title), .literal(shown(m.metric, m.a)), .literal(shown(m.metric, m.b)), ratio, ci,
                   m.tested ? .literal(String(format: "%.4f", m.pAdjusted)) : .empty(shown: "—"), .literal(mark)],
                  htmlClass: m.worse ? "worse" : nil)
        }
        return t
    }

    var sizes: String {
        let c = comparison
        func size(_ f: CohortFigures) -> String {
            "\(f.value ?? "unknown"): \(f.participants) participant\(f.participants == 1 ? "" : "s") in "
                + "\(f.meetings) meeting\(f.meetings == 1 ? "" : "s")" + (f.insufficient ? " (too little data)" : "")
        }
        return size(c.a) + "; " + size(c.b) + "."
    }

    static func methodText(_ o: BootstrapOptions, splits: Bool = false) -> String {
        "Ratios B/A with 95 % percentile bootstrap intervals over meetings (\(o.replicates) resamples, seed \(o.seed)); "
            + "one resample serves both cohorts. p from the resamples' standard error of log(B/A) against Student's t "
            + "(meetings − 1 degrees of freedom). Significant = Holm-adjusted p below 0.05 over all "
            + "\(CohortMetric.allCases.count) metrics, so the chance of any false alarm in the comparison stays at most 5 %; "
            + "nothing is significant while a side has too little data (under \(o.minMeetings) meetings or \(o.minParticipants) participants). "
            + "--fail-if-worse exits 2 when B is significantly worse on stall rate, time at poor/bad, abnormal disconnects "
            + "or never-rendered video. "
            + (splits ? CohortsReport.splitNote + " " : "") + "See Docs/cohorts.md."
    }

    public var markdown: String {
        var out = "# \(Markdown.escape(heading))\n\n**\(Markdown.escape(comparison.verdict)).**\n\n"
        out += ConfigNote.paragraph(config) + Markdown.escape(sizes) + "\n\n"
        out += metricsTable.markdown
        return out + "\n" + CompareReport.methodText(comparison.options, splits: comparison.field.changesInCall) + "\n"
    }

    public var csv: String {
        var t = ReportTable(headers: ["metric", "a", "b", "ratio", "ratioLow", "ratioHigh", "p", "pAdjusted", "significant", "worse"])
        func n(_ j: JSON) -> ReportCell { j == .null ? .empty(shown: "") : .number(j, shown: j.rendered()) }
        for m in comparison.metrics {
            let r: (Double?) -> ReportCell = { n($0.map { .double(CohortsReport.rounded($0, 1000)) } ?? .null) }
            t.add([.literal(m.metric.rawValue), n(value(m.metric, m.a)), n(value(m.metric, m.b)), r(m.ratio),
                   r(m.ratioCI?.lower), r(m.ratioCI?.upper),
                   n(CompareReport.p(m, m.p)), n(CompareReport.p(m, m.pAdjusted)),
                   .literal(m.significant ? "true" : "false"), .literal(m.worse ? "true" : "false")])
        }
        return t.csv
    }

    public var html: String {
        var body = "<h1>\(heading.html)</h1>\n<p><strong>\(comparison.verdict.html).</strong></p>\n"
            + ConfigNote.htmlParagraph(config) + "<p>\(sizes.html)</p>\n"
        body += CohortChart.stallRates([comparison.a, comparison.b])
        body += metricsTable.html
        body += "<p>\(CompareReport.methodText(comparison.options, splits: comparison.field.changesInCall).html)</p>\n"
        return HTMLPage.document(title: heading, body: body)
    }
}

import MQABase
import MQAModel
import MQAAnalysis

/// The fleet-wide pages of a report site, beside `index.html`: the cohorts
/// (one section per field) and the trends (per day, and per day by network).
public enum SiteCohortPages {
    public static let cohorts = "cohorts.html"
    public static let trends = "trends.html"
    /// The fields the cohorts page shows, in order.
    public static let fields: [CohortField] = [.sdkVersion, .platform, .netType, .engine, .appVersion, .osVersion]

    /// The links the index shows.
    public static let links: [(title: String, file: String)] = [
        ("Cohorts: SDK, platform, network, engine, app, OS", cohorts), ("Trends per day or week", trends),
    ]

    static let back = "<p><a href=\"\(SitePages.index)\">← all meetings</a></p>\n"

    /// `cohorts.html` of the fleet `meetings`.
    /// `config`: the one the meetings were analysed under, said where it
    /// is not the defaults.
    public static func cohortsPage(_ meetings: [CohortMeeting], options: BootstrapOptions = .default,
                                   config: TierConfig = TierConfig()) -> String {
        let tables = fields.map { CohortTable(meetings, by: $0, options: options) }
        var body = back + "<h1>Cohorts: \(meetings.count) meetings</h1>\n" + ConfigNote.htmlParagraph(config)
        body += "<p>" + fields.map { HTMLPage.link("#by-\($0.rawValue)", "by \($0.rawValue)") }.joined(separator: " · ") + "</p>\n"
        for t in tables {
            let report = CohortsReport(t)
            body += "<h2 id=\"by-\(t.field.rawValue)\">By \(t.field.rawValue)</h2>\n"
            // In a chart box, like every chart of the site: at 400 px the
            // chart keeps its text size and scrolls instead of shrinking.
            body += "<div class=\"chart\">" + CohortChart.stallRates(t.cohorts + (t.unknown.participants > 0 ? [t.unknown] : [])) + "</div>\n"
            body += report.rowsTable.html
        }
        body += "<p>\(CohortsReport.methodText(options, splits: true).html)</p>\n"
        return HTMLPage.document(title: "Cohorts", body: body)
    }

    /// `trends.html`: the fleet per period, then per period by network
    /// (each figure on the network it was measured on). Per day over two weeks or less, else per week: a fleet spread
    /// over many days has too few meetings a day for an interval. Days and
    /// weeks are those of `zone`'s calendar, as `report trends --tz` counts.
    public static func trendsPage(_ meetings: [CohortMeeting], options: BootstrapOptions = .default,
                                  config: TierConfig = TierConfig(), zone: ClockZone = .utc) -> String {
        var body = back
        let starts = meetings.compactMap(\.start)
        let spanDays = (starts.max() ?? 0) - (starts.min() ?? 0)
        let every: TrendPeriod = spanDays > 14 * 86_400_000 ? .week : .day
        for field in [nil, CohortField.netType] {
            let report = TrendsReport(TrendTable(meetings, every: every, by: field, options: options, zone: zone))
            body += "<h1>\(report.heading.html)</h1>\n"
                + (field == nil ? ConfigNote.htmlParagraph(config) + "<p>\(report.periodsNote.html)</p>\n" : "")
                + "<div class=\"chart\">" + TrendChart.stallRates(report.table) + "</div>\n"
                + report.rowsTable.html
        }
        body += "<p>\(CohortsReport.methodText(options, splits: true).html)</p>\n"
        return HTMLPage.document(title: "Trends", body: body)
    }
}

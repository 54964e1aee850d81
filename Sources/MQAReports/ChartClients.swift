import MQAModel
import MQAAnalysis

/// Where a meeting report's charts find each client's reports: in the log
/// the report was made from, or read again from the store, one client at a
/// time, when the log was read without them (`MeetingReport(stored:in:config:)`).
///
/// `@unchecked Sendable`: a reading closure uses the store's connection,
/// which is used on the thread that made the report; a report read from the
/// store is written there (`report meeting ID`), never handed to another
/// thread. Reports made from held logs (the batch's) read nothing.
struct ChartClients: @unchecked Sendable {
    /// The meeting's clients, in uid order, with or without their reports.
    let logged: [ClientLog]
    /// Walks client `i`'s reports (`ConnectedReports`, a long series
    /// chunk by chunk, never held whole); nil when `logged` holds them.
    let read: ((Int) throws -> ConnectedReports)?

    var count: Int { logged.count }

    /// Client `i`'s reports to walk.
    func walk(_ i: Int) throws -> ConnectedReports {
        guard let read else { return ConnectedReports(logged[i]) }
        return try read(i)
    }

    /// Client `i`'s chart series under `config`, bucketed to the chart's
    /// time `range` when longer than a chart draws.
    func series(_ i: Int, config: TierConfig, bucketing range: (start: Int64, end: Int64)) throws -> QualitySeries {
        try QualitySeries(logged[i], reports: walk(i), config: config, bucketing: range)
    }

    /// What client `i`'s reports give the charts' scales; nil without a
    /// warm report.
    func scaleFigures(_ i: Int, config: TierConfig) throws -> ChartScales.Figures? {
        try ChartScales.Figures(walk(i), config: config)
    }
}

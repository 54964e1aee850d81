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

    /// Client `i`'s chart series under `config`.
    func series(_ i: Int, config: TierConfig) throws -> QualitySeries {
        guard let read else { return QualitySeries(logged[i], config: config) }
        return try QualitySeries(logged[i], reports: read(i), config: config)
    }
}

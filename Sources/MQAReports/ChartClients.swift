import MQAModel

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
    /// Reads client `i`'s reports; nil when `logged` holds them.
    let read: ((Int) throws -> ReportColumns)?

    var count: Int { logged.count }

    /// Client `i` with its reports.
    func client(_ i: Int) throws -> ClientLog {
        guard let read else { return logged[i] }
        var c = logged[i]
        c.reports = try read(i)
        return c
    }
}

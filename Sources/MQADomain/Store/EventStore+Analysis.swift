extension EventStore {
    /// Clients with more reports than this are not held in memory by
    /// `analyzeMeeting`: their chunks are decoded again for each pass of the
    /// analysis. Below it, one decode and six columns (12 MB at most).
    public static let heldReportLimit = 1 << 18

    /// Analyses a stored meeting under `config` with memory bounded whatever
    /// one client's length or the number of clients: each client's reports
    /// are read in its turn and dropped after; short series are decoded once
    /// and held meanwhile, long ones read chunk by chunk on each pass (see
    /// `ReportBlocks`). Returns the meeting's log without its reports (its
    /// events, title and engine are whole) and the analysis; `nil` when the
    /// store has no such meeting.
    public func analyzeMeeting(_ meeting: String, config: TierConfig, holdingUpTo limit: Int = EventStore.heldReportLimit) throws -> (log: MeetingLog, analysis: MeetingAnalysis)? {
        // Events only: each client's reports are read when its turn comes.
        guard let log = try meetingLog(meeting, lenient: false, holdReports: { _ in false }) else { return nil }
        let ids = Dictionary(try clients(meeting: meeting).map { ($0.uid, $0.id) }, uniquingKeysWith: { a, _ in a })
        let analysis = try MeetingAnalysis.analyze(
            meeting: meeting, engine: log.engine, clientCount: log.clients.count,
            client: { i in
                let client = log.clients[i]
                guard let id = ids[client.uid] else { throw StoreError.inconsistent("client \(meeting)/\(client.uid) vanished") }
                return ClientInput(uid: client.uid, events: client.events,
                                   reports: try storedReports(client: id, meeting: meeting, uid: client.uid, holdingUpTo: limit))
            },
            config: config)
        return (log, analysis)
    }

    /// A client's stored reports for the analysis: decoded once and held
    /// when there are at most `limit`, else decoded chunk by chunk per pass.
    private func storedReports(client id: Int64, meeting: String, uid: String, holdingUpTo limit: Int) throws -> ReportBlocks {
        let count = try reportCount(client: id)
        if count <= limit {
            var columns = ReportColumns()
            columns.reserve(count)
            let cursor = try reportChunks(client: id, meeting: meeting, uid: uid)
            while let block = try cursor.next() { columns.append(block) }
            return ReportBlocks(columns)
        }
        return ReportBlocks { [self] body in
            let cursor = try reportChunks(client: id, meeting: meeting, uid: uid)
            while let block = try cursor.next() {
                var columns = ReportColumns()
                columns.append(block)
                try body(columns)
            }
        }
    }
}

extension EventStore {
    /// Clients with more reports than this are not held in memory by
    /// `analyzeMeeting`: their chunks are decoded again for each pass of the
    /// analysis. Below it, one decode and six columns (12 MB at most).
    public static let heldReportLimit = 1 << 18

    /// Analyses a stored meeting under `config` with memory bounded whatever
    /// one client's length: short series are decoded once and held, long
    /// ones are read chunk by chunk on each pass (see `ReportBlocks`).
    /// Returns the meeting's log with the long series left empty (its
    /// events, title and engine are whole) and the analysis; `nil` when the
    /// store has no such meeting.
    public func analyzeMeeting(_ meeting: String, config: TierConfig, holdingUpTo limit: Int = EventStore.heldReportLimit) throws -> (log: MeetingLog, analysis: MeetingAnalysis)? {
        guard let log = try meetingLog(meeting, lenient: false, holdReports: { $0 <= limit })
        else { return nil }
        let ids = Dictionary(try clients(meeting: meeting).map { ($0.uid, $0.id) }, uniquingKeysWith: { a, _ in a })
        var inputs: [ClientInput] = []
        for client in log.clients {
            guard let id = ids[client.uid] else { continue }
            let reports: ReportBlocks
            if try reportCount(client: id) <= limit {
                reports = ReportBlocks(client.reports)
            } else {
                reports = ReportBlocks { [self] body in
                    let cursor = try reportChunks(client: id, meeting: meeting, uid: client.uid)
                    while let block = try cursor.next() {
                        var columns = ReportColumns()
                        columns.append(block)
                        try body(columns)
                    }
                }
            }
            inputs.append(ClientInput(uid: client.uid, events: client.events, reports: reports))
        }
        let analysis = try MeetingAnalysis.analyze(meeting: meeting, engine: log.engine, clients: inputs, config: config)
        return (log, analysis)
    }
}

import MQABase
import MQAModel
import MQAAnalysis

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
    public func analyzeMeeting(_ meeting: String, config: TierConfig, holdingUpTo limit: Int = EventStore.heldReportLimit,
                               keepingTimelines: Bool = true) throws -> (log: MeetingLog, analysis: MeetingAnalysis)? {
        // Events only: each client's reports are read when its turn comes.
        guard let (log, ids, counts) = try storedMeeting(meeting, lenient: false, withReports: false) else { return nil }
        let analysis = try MeetingAnalysis.analyze(
            meeting: meeting, engine: log.engine, clientCount: log.clients.count,
            client: { i in
                let uid = log.clients[i].uid
                return ClientInput(uid: uid, events: log.clients[i].events,
                                   reports: try storedReports(client: ids[i], count: counts[i], meeting: meeting, uid: uid,
                                                              holdingUpTo: limit))
            },
            config: config, keepingTimelines: keepingTimelines)
        return (log, analysis)
    }

    /// A client's `count` stored reports for the analysis: decoded once and
    /// held when there are at most `limit`, else decoded chunk by chunk per
    /// pass.
    private func storedReports(client id: Int64, count: Int, meeting: String, uid: String,
                               holdingUpTo limit: Int) throws -> ReportBlocks {
        if count <= limit {
            return ReportBlocks(try reportColumns(client: id, count: count, meeting: meeting, uid: uid))
        }
        return ReportBlocks { [self] body in
            let cursor = try reportChunks(client: id, meeting: meeting, uid: uid)
            while true {
                var columns = ReportColumns()
                guard try cursor.next(appendingTo: &columns) else { break }
                try body(columns)
            }
        }
    }
}


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
        try analyzeMeetingForRereading(meeting, config: config, holdingUpTo: limit, keepingTimelines: keepingTimelines,
                                       withReceived: false).map { ($0.log, $0.analysis) }
    }

    /// `analyzeMeeting`, and a way to read each client's reports again
    /// afterwards (a meeting report's incidents and charts), one client at
    /// a time. The log holds what each imported connection received
    /// (`MeetingLog.received`, for the incidents' mesh rule) when
    /// `withReceived`.
    public func analyzeMeetingForRereading(
        _ meeting: String, config: TierConfig, holdingUpTo limit: Int = EventStore.heldReportLimit,
        keepingTimelines: Bool = true, withReceived: Bool = true
    ) throws -> (log: MeetingLog, analysis: MeetingAnalysis, reports: StoredReports)? {
        // Events only: each client's reports are read when its turn comes.
        guard let (log, ids, counts) = try storedMeeting(meeting, lenient: false, withReports: false, withReceived: withReceived)
        else { return nil }
        let analysis = try MeetingAnalysis.analyze(
            meeting: meeting, engine: log.engine, clientCount: log.clients.count,
            client: { i in
                let uid = log.clients[i].uid
                return ClientInput(uid: uid, events: log.clients[i].events,
                                   reports: try storedReports(client: ids[i], count: counts[i], meeting: meeting, uid: uid,
                                                              holdingUpTo: limit))
            },
            config: config, keepingTimelines: keepingTimelines)
        return (log, analysis, StoredReports(store: self, meeting: meeting, uids: log.clients.map(\.uid), ids: ids, counts: counts))
    }

    /// A meeting's log without its reports, and its clients' reports to be
    /// read one client at a time (`StoredReports.client`): a command that
    /// needs every report of a meeting of thousands of clients (`tune`)
    /// holds one client's at a time. `nil` when the store has no such
    /// meeting; a damaged chunk throws `StoreError.damaged`.
    public func meetingLogWithoutReports(_ meeting: String) throws -> (log: MeetingLog, reports: StoredReports)? {
        guard let (log, ids, counts) = try storedMeeting(meeting, lenient: false, withReports: false) else { return nil }
        return (log, StoredReports(store: self, meeting: meeting, uids: log.clients.map(\.uid), ids: ids, counts: counts))
    }

    /// The stored reports of a meeting's clients (those of its log, in
    /// order), read one client at a time.
    public struct StoredReports {
        let store: EventStore
        let meeting: String
        let uids: [String]
        let ids: [Int64]
        let counts: [Int]

        /// Client `i`'s reports as blocks: decoded whole when there are at
        /// most `limit`, else chunk by chunk on each pass (`ReportBlocks`).
        public func blocks(_ i: Int, holdingUpTo limit: Int = EventStore.heldReportLimit) throws -> ReportBlocks {
            try store.storedReports(client: ids[i], count: counts[i], meeting: meeting, uid: uids[i], holdingUpTo: limit)
        }

        /// Client `i` of `log` (the log they were read with) and its
        /// reports to walk (`ConnectedReports`): held when there are at
        /// most `limit`, else decoded chunk by chunk on each walk.
        public func walk(_ i: Int, of log: MeetingLog, holdingUpTo limit: Int = EventStore.heldReportLimit) throws
            -> ConnectedReports
        {
            try ConnectedReports(log.clients[i], reports: blocks(i, holdingUpTo: limit))
        }

        /// Client `i` of `log` (the log they were read with) with its
        /// reports, decoded whole; throws `StoreError.damaged` on a chunk
        /// that cannot be read.
        public func client(_ i: Int, of log: MeetingLog) throws -> ClientLog {
            var c = log.clients[i]
            c.reports = try store.reportColumns(client: ids[i], count: counts[i], meeting: meeting, uid: uids[i])
            return c
        }
    }

    /// A client's `count` stored reports for the analysis: decoded once and
    /// held when there are at most `limit`, else decoded chunk by chunk per
    /// pass.
    fileprivate func storedReports(client id: Int64, count: Int, meeting: String, uid: String,
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


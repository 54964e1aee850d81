import MQABase
import MQAModel

/// Everything the tier engine derives from one meeting: the tier timeline of
/// every connection, per-participant statistics, subscriptions with their
/// stalls, and the issues of the meeting report.
public struct MeetingAnalysis: Sendable {
    public var meeting: String
    /// `MeetingLog.engine`.
    public var engine: String?
    public var config: TierConfig
    /// Every connection, clients in uid order, each client's in time order.
    public var connections: [ConnectionAnalysis]
    /// One per client, in uid order.
    public var participants: [ParticipantAnalysis]
    /// Clients in uid order, each client's subscriptions in opening order.
    public var subscriptions: [Subscription]
    public var issues: [Issue]
    /// Each client's recomputed tier over time, by uid.
    public var timelines: [String: TierTimeline]

    /// A CDN meeting has no quality feed: its quality statistics are `nil`.
    /// Every other engine (`sfu`, and `p2p` of format 1.2) has one.
    public var isCDN: Bool { !EventCatalog.hasQualityFeed(engine: engine) }

    /// The first and last event time over all clients, reports included;
    /// `nil` when nothing was logged.
    public var span: (first: Int64, last: Int64)?

    /// Analyses one meeting with a valid `config`; without
    /// `keepingTimelines`, `connections` and `timelines` stay empty (see
    /// below).
    public static func analyze(_ log: MeetingLog, config: TierConfig, keepingTimelines: Bool = true) -> MeetingAnalysis {
        let clients = log.clients
        // Reports held in memory are read without any failure.
        return try! analyze(meeting: log.meeting, engine: log.engine, clientCount: clients.count, client: { i in
            ClientInput(uid: clients[i].uid, events: clients[i].events, reports: ReportBlocks(clients[i].reports))
        }, config: config, keepingTimelines: keepingTimelines)
    }

    /// Analyses one meeting whose clients' reports are read block by block
    /// (see `ReportBlocks`); throws what reading them throws.
    public static func analyze(meeting: String, engine: String?, clients: [ClientInput],
                               config: TierConfig) throws -> MeetingAnalysis {
        try analyze(meeting: meeting, engine: engine, clientCount: clients.count, client: { clients[$0] }, config: config)
    }

    /// Analyses one meeting whose clients are made one at a time by
    /// `client(i)`, `i` in `0..<clientCount` (uid order), and dropped once
    /// analysed: a meeting of 100,000 clients never holds all their reports.
    ///
    /// Without `keepingTimelines`, `connections` and `timelines` stay
    /// empty: the summary tables read only participants, subscriptions and
    /// issues, and keeping every connection's tier history was half the
    /// memory of summarizing a meeting of 100,000 clients.
    public static func analyze(meeting: String, engine: String?, clientCount: Int, client input: (Int) throws -> ClientInput,
                               config: TierConfig, keepingTimelines: Bool = true) throws -> MeetingAnalysis {
        let cdn = !EventCatalog.hasQualityFeed(engine: engine)
        var analysis = MeetingAnalysis(
            meeting: meeting, engine: engine, config: config, connections: [], participants: [],
            subscriptions: [], issues: [], timelines: [:], span: nil)
        // At its final size at once: grown by doubling, the old and new
        // copies of 100,000 participants (~400 bytes each) coexisted.
        analysis.participants.reserveCapacity(clientCount)
        for i in 0..<clientCount {
            let client = try input(i)
            let c = try ClientAnalysis.analyze(
                uid: client.uid, events: client.events, reports: client.reports, config: config, cdn: cdn)
            if keepingTimelines {
                analysis.connections += c.connections
                analysis.timelines[client.uid] = c.timeline
            }
            analysis.participants.append(c.participant)
            analysis.subscriptions += c.subscriptions
            if let s = c.span {
                analysis.span = (min(analysis.span?.first ?? s.first, s.first), max(analysis.span?.last ?? s.last, s.last))
            }
        }
        analysis.issues = IssueFinder.issues(
            cdn: cdn, start: analysis.span?.first, participants: analysis.participants, subscriptions: analysis.subscriptions)
        return analysis
    }
}

/// What the analysis reads of one client: its events except quality reports
/// and context events, in time order, and its reports.
public struct ClientInput {
    public var uid: String
    public var events: [TimedEvent]
    public var reports: ReportBlocks

    public init(uid: String, events: [TimedEvent], reports: ReportBlocks) {
        self.uid = uid
        self.events = events
        self.reports = reports
    }
}

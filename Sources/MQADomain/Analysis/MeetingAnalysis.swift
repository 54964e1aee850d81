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
    public var isCDN: Bool { engine == "cdn" }

    /// Analyses one meeting with a valid `config`.
    public static func analyze(_ log: MeetingLog, config: TierConfig) -> MeetingAnalysis {
        let engine = log.engine
        let cdn = engine == "cdn"
        var connections: [ConnectionAnalysis] = []
        var participants: [ParticipantAnalysis] = []
        var subscriptions: [Subscription] = []
        var timelines: [String: TierTimeline] = [:]

        for client in log.clients {
            // Indices of the warm reports, not copies of their values: each
            // metric's distribution is built from them one at a time, so a
            // client of millions of reports holds one extra column at once.
            var warmMOS: [Double] = [], warmIndices: [Int] = []
            var tierMs = TierDurations()
            var agreement = TierAgreement()
            var holds: [TierHold] = []
            var changes = 0, flaps = 0, warm = 0, cold = 0
            let spans = client.connectionSpans()
            for span in spans {
                let run = client.runConnection(span, config: config)
                let c = run.analysis
                connections.append(c)
                tierMs.add(c.tierMs)
                changes += c.changes.count
                flaps += c.flaps
                warm += c.warmReports
                cold += c.coldReports
                holds += c.holds
                agreement.add(client.sdkTierAgreement(in: span, holds: c.holds))
                warmMOS += run.warmMOS
                warmIndices += run.warmIndices
            }
            let timeline = TierTimeline(holds: holds)
            timelines[client.uid] = timeline

            var disconnects: [Disconnect] = []
            var reconnects = 0
            for e in client.events {
                switch e.payload.kind {
                case .disconnect:
                    disconnects.append(Disconnect(ts: e.ts, reason: e.payload.string("reason") ?? "", error: e.payload.string("error")))
                case .reconnect: reconnects += 1
                default: break
                }
            }
            func warmDistribution(_ column: [Double]) -> Distribution? {
                cdn ? nil : Distribution(warmIndices.map { column[$0] })
            }
            let mos = cdn ? nil : Distribution(warmMOS)
            warmMOS = []
            participants.append(ParticipantAnalysis(
                uid: client.uid, connections: spans.count, warmReports: warm, coldReports: cold,
                mos: mos,
                lossPct: warmDistribution(client.reports.loss),
                rttMs: warmDistribution(client.reports.rtt),
                jitterMs: warmDistribution(client.reports.jitter),
                bitrateKbps: warmDistribution(client.reports.bitrate),
                tierMs: tierMs, tierChanges: changes, flaps: flaps,
                sdkAgreement: agreement, sdkTierAgreement: cdn ? nil : agreement.ratio,
                disconnects: disconnects, reconnects: reconnects))

            for var s in client.subscriptions() {
                for k in s.stalls.indices { s.stalls[k].tier = timeline.tier(at: s.stalls[k].start) }
                subscriptions.append(s)
            }
        }
        let issues = IssueFinder.issues(cdn: cdn, participants: participants, subscriptions: subscriptions)
        return MeetingAnalysis(
            meeting: log.meeting, engine: engine, config: config, connections: connections,
            participants: participants, subscriptions: subscriptions, issues: issues, timelines: timelines)
    }
}

import MQABase
import MQAModel

/// One participant's figures for the fleet's cohort questions: what it
/// watched and how much of that stalled, its time at poor/bad, its MOS,
/// its abnormal disconnects and its first-frame times, with who the client
/// was. Made from a meeting's analysis (`CohortMeeting.init(analysis:context:)`)
/// or, identically, from the stored summaries (`EventStore.cohortMeetings`).
public struct CohortParticipant: Sendable, Equatable {
    public var uid: String
    /// The meeting's `engine` (`nil` without a join).
    public var engine: String?
    /// The format 1.2 client fields, last value of each.
    public var client: ParticipantContext.ClientInfo
    /// Rendered video time as subscriber: Σ (end − first frame) of the
    /// subscriptions that rendered.
    public var watchedMs: Int64
    /// Stalled video time over the same subscriptions.
    public var stalledMs: Int64
    /// Warm time in the `poor` or `bad` tier (0 in a CDN meeting).
    public var lowTierMs: Int64
    /// Warm time in any known tier: the share's denominator.
    public var measuredMs: Int64
    /// The participant's median warm MOS; `nil` without one (and in CDN).
    public var mosP50: Double?
    /// Disconnects that carried an `error`.
    public var abnormalDisconnects: Int
    /// Subscribe → first frame of each subscription opened by a
    /// `stream_subscribe` that rendered (one opened by a status has no
    /// real subscribe time, one never rendered has no first frame).
    public var firstFrameMs: [Int64]
    /// Video subscriptions as subscriber, and of those the ones that never
    /// showed a frame: a cohort whose video never renders has no watched
    /// time, so no stall rate, and only this share shows it.
    public var subscriptions = 0
    public var neverRendered = 0
    /// The same figures split by a client field whose value changed while
    /// the participant had figures (`split(by:client:cdn:config:)`): per
    /// such field, one piece per value, its `pieceOf` the field and its
    /// `client` naming the value. Empty otherwise. Cohorts by that field
    /// count these instead of the participant; every other field counts
    /// the participant whole.
    public var pieces: [CohortParticipant] = []
    /// For a piece, the field it is a piece of; `nil` for a participant.
    public var pieceOf: CohortField?

    /// The fields the participant is split by (its pieces' fields, in
    /// `CohortField.allCases` order).
    public var splitFields: [CohortField] {
        CohortField.allCases.filter { f in pieces.contains { $0.pieceOf == f } }
    }

    public init(uid: String, engine: String?, client: ParticipantContext.ClientInfo, watchedMs: Int64, stalledMs: Int64,
                lowTierMs: Int64, measuredMs: Int64, mosP50: Double?, abnormalDisconnects: Int, firstFrameMs: [Int64]) {
        self.uid = uid
        self.engine = engine
        self.client = client
        self.watchedMs = watchedMs
        self.stalledMs = stalledMs
        self.lowTierMs = lowTierMs
        self.measuredMs = measuredMs
        self.mosP50 = mosP50
        self.abnormalDisconnects = abnormalDisconnects
        self.firstFrameMs = firstFrameMs
    }

    /// Adds one subscription (this participant as its subscriber).
    public mutating func add(subscribeTs: Int64, endTs: Int64, firstFrameTs: Int64?, stalledMs stalled: Int64, kind: String?) {
        subscriptions += 1
        guard let first = firstFrameTs else {
            neverRendered += 1
            return
        }
        watchedMs += max(0, endTs - first)
        stalledMs += stalled
        if kind != nil { firstFrameMs.append(first - subscribeTs) }
    }
}

/// One meeting's participants: the unit the intervals resample, since
/// participants of one meeting share its network, server and publishers.
public struct CohortMeeting: Sendable, Equatable {
    public var meeting: String
    /// The first event time (the meeting summary's `start_ts`).
    public var start: Int64?
    public var participants: [CohortParticipant]

    public init(meeting: String, start: Int64?, participants: [CohortParticipant]) {
        self.meeting = meeting
        self.start = start
        self.participants = participants
    }

    /// The figures of an analysed meeting: one participant per client of
    /// the analysis, in its (uid) order. A client whose network, or other
    /// client field, changed is split by it from `log`
    /// (`split(by:client:cdn:config:)`).
    public init(analysis a: MeetingAnalysis, context: MeetingContext, log: MeetingLog) throws {
        // Reports held in memory are read without any failure.
        try self.init(analysis: a, clientInfo: { context.participant($0)?.client }, log: log,
                      reports: { ReportBlocks(log.clients[$0].reports) })
    }

    /// `init(analysis:context:log:)` of a meeting whose log may come
    /// without its reports (a stored meeting read client by client):
    /// `clientInfo(uid)` gives a participant's client fields, and
    /// `reports(i)` client `i`'s reports, read only for a client whose
    /// field changed. Throws what reading them throws.
    public init(analysis a: MeetingAnalysis, clientInfo: (String) -> ParticipantContext.ClientInfo?, log: MeetingLog,
                reports: (Int) throws -> ReportBlocks) throws {
        meeting = a.meeting
        start = a.span?.first
        var byUID: [String: Int] = [:]
        participants = a.participants.enumerated().map { i, p in
            byUID[p.uid] = i
            let known = a.isCDN ? 0 : p.tierMs.known
            return CohortParticipant(
                uid: p.uid, engine: a.engine, client: clientInfo(p.uid) ?? .init(),
                watchedMs: 0, stalledMs: 0, lowTierMs: a.isCDN ? 0 : p.tierMs[.poor] + p.tierMs[.bad],
                measuredMs: known, mosP50: p.mos?.p50,
                abnormalDisconnects: p.disconnects.count { $0.error != nil }, firstFrameMs: [])
        }
        for s in a.subscriptions {
            guard let i = byUID[s.subscriber] else { continue }
            participants[i].add(subscribeTs: s.subscribeTs, endTs: s.endTs, firstFrameTs: s.firstFrameTs,
                                stalledMs: s.stalledMs, kind: s.kind)
        }
        for (k, c) in log.clients.enumerated() {
            let timelines = CohortField.allCases.compactMap { f in
                let t = ClientFieldTimeline(c, field: f)
                return t.changes ? (f, t) : nil
            }
            guard !timelines.isEmpty, let i = byUID[c.uid] else { continue }
            try participants[i].split(by: timelines, client: ClientInput(uid: c.uid, events: c.events, reports: reports(k)),
                                      cdn: a.isCDN, config: a.config)
        }
    }

    /// `init(analysis:context:log:)` of a meeting log under `config`.
    public init(log: MeetingLog, config: TierConfig = TierConfig()) throws {
        try self.init(analysis: MeetingAnalysis.analyze(log, config: config), context: MeetingContext.build(log), log: log)
    }
}

import MQABase
import MQAModel

/// `mqa tune --by FIELD`: the tuning sweep run on each cohort's clients
/// alone, so that a threshold can differ where the network does ("on
/// cellular, thresholds … instead of …: F1 0.71 vs 0.58"). A client's
/// stalls and tier depend only on its own reports, so a cohort's corpus is
/// its clients taken out of their meetings.
public struct CohortTuning: Sendable {
    public var field: CohortField
    /// The ranking over every client (what `mqa tune` prints).
    public var fleet: [TuningResult]
    /// By value in the field's order, the clients without one last.
    public var cohorts: [Cohort]

    public struct Cohort: Sendable {
        public var value: String?
        public var clients: Int
        public var stalls: Int
        public var reports: Int
        /// Best first.
        public var ranking: [TuningResult]
        /// The fleet's best config scored on this cohort alone.
        public var fleetBest: TuningResult
    }

    /// The field's value for one client of `log` (the last value its joins
    /// logged; the meeting's engine for `engine`).
    public static func value(of client: ClientLog, in log: MeetingLog, field: CohortField) -> String? {
        if field == .engine { return log.engine }
        var info = ParticipantContext.ClientInfo()
        for e in client.events where e.payload.kind == .meetingJoin { info.update(from: e.payload) }
        let p = CohortParticipant(uid: client.uid, engine: nil, client: info, watchedMs: 0, stalledMs: 0, lowTierMs: 0,
                                  measuredMs: 0, mosP50: nil, abnormalDisconnects: 0, firstFrameMs: [])
        return field.value(of: p)
    }

    public init(_ logs: [MeetingLog], by field: CohortField, configs: [TierConfig], options: TuningOptions) {
        self.field = field
        fleet = Tuning.rank(configs: configs, scores: Tuning.countAll(TuningCorpus(logs), configs: configs, options: options)
            .map(TuningScore.init))
        var split: [String?: [MeetingLog]] = [:]
        var clients: [String?: Int] = [:]
        for log in logs {
            var mine: [String?: [ClientLog]] = [:]
            for c in log.clients { mine[CohortTuning.value(of: c, in: log, field: field), default: []].append(c) }
            for (v, cs) in mine {
                split[v, default: []].append(MeetingLog(meeting: log.meeting, clients: cs))
                clients[v, default: 0] += cs.count
            }
        }
        let values = split.keys.sorted { a, b in
            switch (a, b) {
            case (nil, _): return false
            case (_, nil): return true
            case let (x?, y?): return CohortTable.valueLess(x, y, field: field)
            }
        }
        let best = fleet.first
        cohorts = values.map { v in
            let corpus = TuningCorpus(split[v]!)
            let ranking = Tuning.rank(configs: configs, scores: Tuning.countAll(corpus, configs: configs, options: options)
                .map(TuningScore.init))
            let here = ranking.first { $0.gridIndex == best?.gridIndex } ?? ranking[0]
            return Cohort(value: v, clients: clients[v] ?? 0, stalls: corpus.stallCount, reports: corpus.reportCount,
                          ranking: ranking, fleetBest: here)
        }
    }
}

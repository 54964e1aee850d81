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
    /// How the gains' intervals were resampled.
    public var bootstrap: BootstrapOptions

    public struct Cohort: Sendable {
        public var value: String?
        public var clients: Int
        public var stalls: Int
        public var reports: Int
        /// Best first.
        public var ranking: [TuningResult]
        /// The fleet's best config scored on this cohort alone.
        public var fleetBest: TuningResult
        /// Meetings that hold a client of the cohort.
        public var meetings: Int
        /// The 95 % interval of F1(best) − F1(fleetBest) on this cohort,
        /// resampling its meetings (`CohortTuning.gainInterval`); `nil`
        /// with fewer than 2 meetings or when the gain is too often undefined.
        public var gainCI: ConfidenceInterval?

        /// F1(best) − F1(fleetBest): ≥ 0, the best being best here.
        public var gain: Double { (ranking.first?.score.f1 ?? 0) - fleetBest.score.f1 }
    }

    /// The field's value for one client of `log` (what held for its
    /// figures, `ClientInfo(_:)`; the meeting's engine for `engine`).
    public static func value(of client: ClientLog, in log: MeetingLog, field: CohortField) -> String? {
        value(of: client, lastReport: client.reports.ts.last, engine: log.engine, field: field)
    }

    /// `value(of:in:field:)` of a client read without its reports, whose
    /// last report time is known apart, the meeting's engine given (found
    /// once a meeting: `MeetingLog.engine` reads every client's events).
    static func value(of client: ClientLog, lastReport: Int64?, engine: String?, field: CohortField) -> String? {
        field == .engine ? engine : ParticipantContext.ClientInfo(client, lastReport: lastReport)[field]
    }

    /// Where a client counts by `field`: one value, whole, or, for a
    /// client whose value changed (its network, or a rejoin with another),
    /// each value it had reports or stalls under, inside that value's
    /// stretches (as the cohorts count it, `CohortParticipant.split`).
    /// `reports` walks the client's reports (`client.reports` is not read).
    static func values(of client: ClientLog, reports: ConnectedReports, engine: String?, field: CohortField) throws
        -> [(value: String?, windows: [TuningCorpus.Window]?)] {
        let whole = [(value: value(of: client, lastReport: reports.lastReportTs, engine: engine, field: field),
                      windows: [TuningCorpus.Window]?.none)]
        let timeline = ClientFieldTimeline(client, field: field)
        guard timeline.changes else { return whole }
        var used = Set<Int>()
        try reports.forEachConnectedRun { c, r, _ in
            for t in c.ts[r] { used.insert(timeline.stretch(at: t)) }
        }
        for s in client.subscriptions(until: reports.lastTs(of: client)) {
            for stall in s.stalls { used.insert(timeline.stretch(at: stall.start)) }
        }
        var order: [String?] = []
        var windows: [String?: [TuningCorpus.Window]] = [:]
        for i in timeline.values.indices where used.contains(i) {
            let v = timeline.values[i]
            let w = TuningCorpus.Window(from: timeline.starts[i], to: timeline.end(of: i))
            if windows[v] == nil { order.append(v) }
            windows[v, default: []].append(w)
        }
        if order.count <= 1 { return order.first.map { [(value: $0, windows: nil)] } ?? whole }
        return order.map { (value: $0, windows: windows[$0]) }
    }

    /// The sweep over `logs`, per value of `field`.
    public init(_ logs: [MeetingLog], by field: CohortField, configs: [TierConfig], options: TuningOptions,
                bootstrap: BootstrapOptions = .default) {
        var builder = Builder(by: field, configs: configs, options: options)
        for log in logs { builder.add(log) }
        self = builder.finish(bootstrap: bootstrap)
    }

    /// Meetings added one at a time, each flattened at once into the
    /// fleet's tally and its cohorts' (`TuningTally`) and let go: holding
    /// every log took 157 MB for 300 meetings, every corpus 751 MB for 3,000.
    public struct Builder {
        public let field: CohortField
        public let configs: [TierConfig]
        public let options: TuningOptions
        var fleet: TuningTally
        /// One tally per value, a part per meeting that has the value.
        var split: [String?: TuningTally] = [:]
        var clients: [String?: Int] = [:]
        /// Reports held in all the tallies before they are all counted.
        let budget: Int

        /// `reports`: how many the meetings to come hold in all, if known,
        /// so that the fleet's columns are not grown with slack.
        /// `batchReports`: what all the tallies may hold at once, by
        /// default one `TuningTally` batch's worth.
        public init(by field: CohortField, configs: [TierConfig], options: TuningOptions, reports: Int = 0,
                    batchReports: Int? = nil) {
            self.field = field
            self.configs = configs
            self.options = options
            // The fleet and its cohorts hold each report about twice.
            budget = batchReports ?? TuningTally(configs: configs, options: options).batchReports
            fleet = TuningTally(configs: configs, options: options, batchReports: .max)
            fleet.reserve(reports: min(reports, budget / 2))
        }

        public mutating func add(_ log: MeetingLog) {
            // Reports held in memory are read without any failure.
            try! add(log, walking: { ConnectedReports(log.clients[$0]) })
        }

        /// Adds a meeting a client at a time: `log` may come without its
        /// reports (`EventStore.meetingLogWithoutReports`), `reports(i)`
        /// walks client `i`'s (`ConnectedReports`), so that a client of
        /// millions of them is read block by block. Throws what reading
        /// them throws.
        public mutating func add(_ log: MeetingLog, walking reports: (Int) throws -> ConnectedReports) throws {
            var touched: [String?] = []
            let engine = log.engine
            for (i, c) in log.clients.enumerated() {
                let walk = try reports(i)
                // Counted first when this client (about twice: in the fleet
                // and in its cohorts) could take the tallies past the budget.
                let held = split.values.reduce(fleet.heldReports) { $0 + $1.heldReports }
                if held > 0, held + 2 * walk.reportCount > budget { flushAll() }
                // A client too long to be held twice is counted in each
                // tally as soon as it is added, before the next takes it:
                // one copy at a time, however many networks it used (a
                // client of 4M reports held twice peaked at 426 MiB).
                let long = 2 * walk.reportCount > budget
                try fleet.add(client: c, reports: walk, engine: engine, windows: nil)
                if long { fleet.flush(keepingCapacity: false) }
                for (v, windows) in try CohortTuning.values(of: c, reports: walk, engine: engine, field: field) {
                    if !touched.contains(v) { touched.append(v) }
                    try split[v, default: TuningTally(configs: configs, options: options, keepsParts: true, batchReports: .max)]
                        .add(client: c, reports: walk, engine: engine, windows: windows)
                    if long { split[v]!.flush(keepingCapacity: false) }
                    clients[v, default: 0] += 1
                }
            }
            fleet.endPart()
            for v in touched { split[v]!.endPart() }
        }

        /// Counts what every tally holds.
        private mutating func flushAll() {
            fleet.flush()
            // A cohort's share of the next batch may differ: its columns are
            // let go, not kept for it.
            for v in split.keys { split[v]!.flush(keepingCapacity: false) }
        }

        /// Ranks the configs over the fleet and over each cohort.
        public consuming func finish(bootstrap: BootstrapOptions = .default) -> CohortTuning {
            let configs = configs
            let fleetRanking = Tuning.rank(configs: configs, scores: fleet.finish(medianLeadOnly: true).map(TuningScore.init))
            let values = split.keys.sorted { a, b in
                switch (a, b) {
                case (nil, _): return false
                case (_, nil): return true
                case let (x?, y?): return CohortTable.valueLess(x, y, field: field)
                }
            }
            let best = fleetRanking.first
            var cohorts: [Cohort] = []
            for v in values {
                guard var tally = split.removeValue(forKey: v) else { continue }
                let ranking = Tuning.rank(configs: configs, scores: tally.finish(medianLeadOnly: true).map(TuningScore.init))
                let here = ranking.first { $0.gridIndex == best?.gridIndex } ?? ranking[0]
                let ci = CohortTuning.gainInterval(tally.partCounts[ranking[0].gridIndex], tally.partCounts[here.gridIndex],
                                                   same: ranking[0].gridIndex == here.gridIndex, bootstrap: bootstrap)
                cohorts.append(Cohort(value: v, clients: clients[v] ?? 0, stalls: tally.stallCount,
                                      reports: tally.countedReportCount, ranking: ranking, fleetBest: here,
                                      meetings: tally.partCount, gainCI: ci))
            }
            return CohortTuning(field: field, fleet: fleetRanking, cohorts: cohorts, bootstrap: bootstrap)
        }
    }

    init(field: CohortField, fleet: [TuningResult], cohorts: [Cohort], bootstrap: BootstrapOptions) {
        self.field = field
        self.fleet = fleet
        self.cohorts = cohorts
        self.bootstrap = bootstrap
    }

    /// How much of a cohort's gain is more than the luck of which meetings
    /// were logged: the two configs' additive counts per meeting (alarms,
    /// useful, stalls, covered; a client belongs to one meeting), summed
    /// over resamples of the cohort's meetings with replacement, give each
    /// replicate's F1 difference; the interval is their 2.5 % and 97.5 %
    /// percentiles. The two configs are held fixed, as chosen on all the
    /// data, so the interval leaves out the luck of that choice (the best of
    /// many configs is flattered by its own data): an interval that reaches
    /// 0 says the gain is not shown; one above 0 is still optimistic.
    static func gainInterval(_ best: [TuningPartCounts], _ fleetBest: [TuningPartCounts], same: Bool,
                             bootstrap: BootstrapOptions) -> ConfidenceInterval? {
        guard best.count >= 2 else { return nil }
        if same { return ConfidenceInterval(lower: 0, upper: 0) }
        // Per meeting: [alarms, useful, stalls, covered] of each config.
        let counts = zip(best, fleetBest).map { pair in
            [pair.0, pair.1].map { [Double($0.alarms), Double($0.useful), Double($0.stalls), Double($0.covered)] }
        }
        func f1(_ c: [Double]) -> Double {
            let precision = c[0] > 0 ? c[1] / c[0] : 0, recall = c[2] > 0 ? c[3] / c[2] : 0
            return precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
        }
        var gains: [Double] = []
        gains.reserveCapacity(bootstrap.replicates)
        bootstrap.forEachReplicate(meetings: counts.count) { _, draws in
            var a = [Double](repeating: 0, count: 4), b = a
            for m in counts.indices where draws[m] > 0 {
                let w = Double(draws[m])
                for k in 0..<4 {
                    a[k] += w * counts[m][0][k]
                    b[k] += w * counts[m][1][k]
                }
            }
            // A resample without a stall has no F1 to speak of.
            gains.append(a[2] > 0 ? f1(a) - f1(b) : .nan)
        }
        return bootstrap.interval(gains)
    }
}

/// `mqa tune --target TIER --lead-ms N`.
public struct TuningOptions: Sendable, Equatable {
    /// Alarms are drops to this tier or worse; must be a known tier.
    public var target: Tier
    /// How far ahead of a stall an alarm still counts (ms, ≥ 0).
    public var leadMs: Int64

    public init(target: Tier = .poor, leadMs: Int64 = 10000) {
        self.target = target
        self.leadMs = leadMs
    }

    /// A message naming the bad option, `nil` when fine.
    public var problem: String? {
        if !target.isKnown { return "--target must be one of excellent, good, fair, poor, bad" }
        if leadMs < 0 { return "--lead-ms must be >= 0" }
        return nil
    }
}

/// How one config's alarms line up with the stalls (spec "Tuning").
public struct TuningScore: Sendable, Equatable {
    public var alarms: Int
    public var stalls: Int
    public var covered: Int
    public var useful: Int
    /// Flaps over all connections.
    public var flaps: Int
    /// Warm connection time: the time in known tiers.
    public var warmMs: Int64
    /// useful / alarms; 0 with no alarm.
    public var precision: Double
    /// covered / stalls; 0 with no stall.
    public var recall: Double
    /// 2·p·r / (p + r); 0 when both are 0.
    public var f1: Double
    /// Per hour of warm connection time; 0 when there is none.
    public var alarmsPerHour: Double
    public var flapsPerHour: Double
    /// Nearest-rank p50 (the ⌈n/2⌉-th smallest) of the lead times; `nil` with none.
    public var medianLeadMs: Int64?

    /// Derives the ratios from the counts; `leads` is consumed (sorted).
    public init(alarms: Int, stalls: Int, covered: Int, useful: Int, flaps: Int, warmMs: Int64, leads: [Int64]) {
        self.alarms = alarms
        self.stalls = stalls
        self.covered = covered
        self.useful = useful
        self.flaps = flaps
        self.warmMs = warmMs
        precision = alarms > 0 ? Double(useful) / Double(alarms) : 0
        recall = stalls > 0 ? Double(covered) / Double(stalls) : 0
        f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
        let hours = Double(warmMs) / 3_600_000
        alarmsPerHour = warmMs > 0 ? Double(alarms) / hours : 0
        flapsPerHour = warmMs > 0 ? Double(flaps) / hours : 0
        medianLeadMs = NearestRank.value(leads.sorted(), percent: 50)
    }
}

/// One config of a sweep with its score.
public struct TuningResult: Sendable, Equatable {
    public var config: TierConfig
    public var score: TuningScore
    /// Position in the grid's product order (see `TuningGrid.configs()`).
    public var gridIndex: Int
    /// No other config has recall ≥ and alarms/hour ≤ this one's, with at
    /// least one of the two strictly better.
    public var pareto: Bool

    /// One element of the `mqa tune --format json` array.
    public var json: JSON {
        .object([
            ("config", config.json),
            ("alarms", .int(Int64(score.alarms))),
            ("stalls", .int(Int64(score.stalls))),
            ("covered", .int(Int64(score.covered))),
            ("useful", .int(Int64(score.useful))),
            ("precision", .double(score.precision)),
            ("recall", .double(score.recall)),
            ("f1", .double(score.f1)),
            ("alarmsPerHour", .double(score.alarmsPerHour)),
            ("flapsPerHour", .double(score.flapsPerHour)),
            ("medianLeadMs", .optional(score.medianLeadMs)),
            ("flaps", .int(Int64(score.flaps))),
            ("warmMs", .int(score.warmMs)),
            ("pareto", .bool(pareto)),
            ("gridIndex", .int(Int64(gridIndex))),
        ])
    }
}

extension Array where Element == TuningResult {
    /// The `mqa tune --format json` array (in the order held, i.e. ranked).
    public var json: JSON { .array(map(\.json)) }
}

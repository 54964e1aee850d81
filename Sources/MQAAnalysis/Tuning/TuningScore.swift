import MQABase
import MQAModel

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

/// The additive part of one config's score: counts that add up exactly
/// when the meetings are split into parts and each part is scored alone
/// (`mqa tune --partials` / `--merge`). Every ratio of a `TuningScore` is
/// derived from these, by the same code whether they come from one run or
/// from a merge.
public struct TuningCounts: Sendable, Equatable {
    /// One lead time and how many covered stalls had it.
    public struct LeadBin: Sendable, Equatable {
        public var ms: Int64
        public var count: Int
        public init(ms: Int64, count: Int) {
            self.ms = ms
            self.count = count
        }
    }

    public var alarms: Int
    public var stalls: Int
    public var covered: Int
    public var useful: Int
    public var flaps: Int
    public var warmMs: Int64
    /// The lead times as a histogram at 1 ms resolution: ascending `ms`,
    /// each at most once, every count > 0. Exact (lead times may exceed
    /// `leadMs`, see the spec's clarifications) and mergeable.
    public private(set) var leads: [LeadBin]

    /// From raw lead times in any order.
    public init(alarms: Int = 0, stalls: Int = 0, covered: Int = 0, useful: Int = 0, flaps: Int = 0,
                warmMs: Int64 = 0, leadTimes: [Int64] = []) {
        var bins: [LeadBin] = []
        for t in leadTimes.sorted() {
            if let last = bins.last, last.ms == t { bins[bins.count - 1].count += 1 } else { bins.append(LeadBin(ms: t, count: 1)) }
        }
        self.init(alarms: alarms, stalls: stalls, covered: covered, useful: useful, flaps: flaps, warmMs: warmMs,
                  histogram: bins)
    }

    /// From a histogram already in the form of `leads`; `nil` when it is not
    /// (out of order, repeated or non-positive counts), a count is
    /// negative, or the counts cannot come from one sweep: more useful
    /// alarms than alarms, more covered stalls than stalls, more lead
    /// times than covered stalls (each has at most one), a negative lead.
    public init?(alarms: Int, stalls: Int, covered: Int, useful: Int, flaps: Int, warmMs: Int64, leads: [LeadBin]) {
        guard alarms >= 0, stalls >= 0, covered >= 0, useful >= 0, flaps >= 0, warmMs >= 0,
              useful <= alarms, covered <= stalls,
              leads.allSatisfy({ $0.count > 0 }), (leads.first?.ms ?? 0) >= 0,
              zip(leads, leads.dropFirst()).allSatisfy({ $0.ms < $1.ms }),
              // Summed without trapping (a hostile file's counts may overflow):
              // past `covered` already, the rest need not be added.
              leads.reduce(0, { sum, bin in sum > covered ? sum : sum + min(bin.count, covered + 1) }) <= covered else { return nil }
        self.init(alarms: alarms, stalls: stalls, covered: covered, useful: useful, flaps: flaps, warmMs: warmMs,
                  histogram: leads)
    }

    private init(alarms: Int, stalls: Int, covered: Int, useful: Int, flaps: Int, warmMs: Int64, histogram: [LeadBin]) {
        self.alarms = alarms
        self.stalls = stalls
        self.covered = covered
        self.useful = useful
        self.flaps = flaps
        self.warmMs = warmMs
        leads = histogram
    }

    /// How many lead times there are.
    public var leadCount: Int { leads.reduce(0) { $0 + $1.count } }

    /// Whether `leads` was cut to its median (`keepingMedianLeadOnly`).
    public private(set) var leadsCutToMedian = false

    /// The same counts with the lead times all put at their median: what a
    /// score reads of them (`leadCount`, `medianLeadMs`) stays, and a
    /// config holds one bin where it held one per distinct lead time
    /// (100,000 configs of the demo store took 3.2 GB). Such counts
    /// neither add up nor make partials.
    public func keepingMedianLeadOnly() -> TuningCounts {
        var out = self
        out.leads = medianLeadMs.map { [LeadBin(ms: $0, count: leadCount)] } ?? []
        out.leadsCutToMedian = true
        return out
    }

    /// Nearest-rank p50 (the ⌈n/2⌉-th smallest) of the lead times; `nil` with none.
    public var medianLeadMs: Int64? {
        let n = leadCount
        guard n > 0 else { return nil }
        let rank = NearestRank.rank(percent: 50, count: n)
        var seen = 0
        for bin in leads {
            seen += bin.count
            if seen >= rank { return bin.ms }
        }
        return nil  // unreachable: the counts add up to n
    }

    /// These counts with `bins` as their lead times (in the form of
    /// `leads`): `TuningTally` keeps lead times packed apart.
    func replacingLeads(with bins: [LeadBin]) -> TuningCounts {
        var out = self
        out.leads = bins
        out.leadsCutToMedian = false
        return out
    }

    /// The counts of the union of two disjoint sets of meetings.
    public static func + (a: TuningCounts, b: TuningCounts) -> TuningCounts {
        precondition(!a.leadsCutToMedian && !b.leadsCutToMedian, "adding counts whose lead times were cut to the median")
        var merged: [LeadBin] = []
        merged.reserveCapacity(a.leads.count + b.leads.count)
        var i = 0, j = 0
        while i < a.leads.count || j < b.leads.count {
            if j == b.leads.count || (i < a.leads.count && a.leads[i].ms < b.leads[j].ms) {
                merged.append(a.leads[i]); i += 1
            } else if i == a.leads.count || b.leads[j].ms < a.leads[i].ms {
                merged.append(b.leads[j]); j += 1
            } else {
                merged.append(LeadBin(ms: a.leads[i].ms, count: a.leads[i].count + b.leads[j].count)); i += 1; j += 1
            }
        }
        return TuningCounts(alarms: a.alarms + b.alarms, stalls: a.stalls + b.stalls, covered: a.covered + b.covered,
                            useful: a.useful + b.useful, flaps: a.flaps + b.flaps, warmMs: a.warmMs + b.warmMs,
                            histogram: merged)
    }
}

/// How one config's alarms line up with the stalls (spec "Tuning").
public struct TuningScore: Sendable, Equatable {
    /// What the ratios are derived from, the lead times cut to their median.
    public var counts: TuningCounts
    public var alarms: Int { counts.alarms }
    public var stalls: Int { counts.stalls }
    public var covered: Int { counts.covered }
    public var useful: Int { counts.useful }
    /// Flaps over all connections.
    public var flaps: Int { counts.flaps }
    /// Warm connection time: the time in known tiers.
    public var warmMs: Int64 { counts.warmMs }
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
    public var medianLeadMs: Int64? { counts.medianLeadMs }

    /// F1 as an exact fraction of the counts, for ranking: with p = useful
    /// / alarms and r = covered / stalls, 2pr / (p + r) = 2·useful·covered
    /// / (useful·stalls + covered·alarms); 0/1 where either is 0.
    public var exactF1: (numerator: Int128, denominator: Int128) {
        let (u, c) = (Int128(counts.useful), Int128(counts.covered))
        guard u > 0, c > 0, counts.alarms > 0, counts.stalls > 0 else { return (0, 1) }
        return (2 * u * c, u * Int128(counts.stalls) + c * Int128(counts.alarms))
    }

    /// This F1 against `other`'s, exactly (cross-multiplied fractions):
    /// below 0 when lower, 0 when equal, above 0 when higher.
    public func compareF1(_ other: TuningScore) -> Int {
        let (a, b) = (exactF1, other.exactF1)
        let (x, y) = (a.numerator * b.denominator, b.numerator * a.denominator)
        return x < y ? -1 : x == y ? 0 : 1
    }

    /// Derives the ratios from raw counts and lead times (in any order).
    public init(alarms: Int, stalls: Int, covered: Int, useful: Int, flaps: Int, warmMs: Int64, leads: [Int64]) {
        self.init(TuningCounts(alarms: alarms, stalls: stalls, covered: covered, useful: useful, flaps: flaps,
                               warmMs: warmMs, leadTimes: leads))
    }

    /// Derives the ratios from the additive counts: the one code path for a
    /// single run and for merged partials, so both give the same bits.
    /// The score of `counts`; it keeps their lead times cut to the median
    /// (`keepingMedianLeadOnly`), all it reads of them.
    public init(_ counts: TuningCounts) {
        self.counts = counts.leadsCutToMedian ? counts : counts.keepingMedianLeadOnly()
        let alarms = counts.alarms, stalls = counts.stalls, warmMs = counts.warmMs
        precision = alarms > 0 ? Double(counts.useful) / Double(alarms) : 0
        recall = stalls > 0 ? Double(counts.covered) / Double(stalls) : 0
        f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
        // count / (warm ms / 3,600,000) in that order (tiers.md). With no
        // warm time (reports only in one millisecond) a count above 0 is
        // +∞ alarms an hour (JSON null; ranked as the most), and none is 0.
        let hours = Double(warmMs) / 3_600_000
        alarmsPerHour = alarms > 0 ? Double(alarms) / hours : 0
        flapsPerHour = counts.flaps > 0 ? Double(counts.flaps) / hours : 0
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
            ("precision", .rounded(score.precision, places: JSON.Places.ratio)),
            ("recall", .rounded(score.recall, places: JSON.Places.ratio)),
            ("f1", .rounded(score.f1, places: JSON.Places.ratio)),
            ("alarmsPerHour", .rounded(score.alarmsPerHour, places: JSON.Places.perHour)),
            ("flapsPerHour", .rounded(score.flapsPerHour, places: JSON.Places.perHour)),
            ("medianLeadMs", .optional(score.medianLeadMs)),
            ("flaps", .int(Int64(score.flaps))),
            ("warmMs", .int(score.warmMs)),
            ("pareto", .bool(pareto)),
            ("gridIndex", .int(Int64(gridIndex))),
        ])
    }
}

extension Array where Element == TuningResult {
    /// The `mqa tune --format json` configs (in the order held, i.e. ranked).
    public var json: JSON { .array(map(\.json)) }
}

import MQABase
import MQAModel

/// A stretch `[from, to)` over which a known recomputed tier holds: warm
/// report *i*'s `[ts_i, min(next warm ts, ts_i + gapMs, connection end))`.
public struct TierHold: Sendable, Equatable {
    public var tier: Tier
    public var from: Int64
    public var to: Int64

    public init(tier: Tier, from: Int64, to: Int64) {
        self.tier = tier
        self.from = from
        self.to = to
    }
}

/// One client's recomputed tier over time: the non-empty holds of all its
/// connections, ascending and disjoint. Every instant outside them is
/// `unknown`.
public struct TierTimeline: Sendable, Equatable {
    public private(set) var holds: [TierHold]

    /// `holds` must be ascending and disjoint; empty ones are dropped.
    public init(holds: [TierHold]) {
        // Filtered only when needed: a filter copies, and the holds given
        // are usually a connection's, all non-empty, kept by it as well.
        self.holds = holds.allSatisfy { $0.to > $0.from } ? holds : holds.filter { $0.to > $0.from }
    }

    /// The recomputed tier at instant `t` ("the subscriber's recomputed tier
    /// at t1" of the stall rules): the tier of the hold whose half-open
    /// interval contains `t`, else `unknown`. So `t` in cold-start time,
    /// before the first warm report, at or after `lastTs + gapMs` of a gap,
    /// at or after a connection's end, or outside every connection is
    /// `unknown`. A report logged in the same millisecond as `t` counts
    /// (its hold starts at `t`), matching the log's rule that reports come
    /// before the other events of their millisecond.
    public func tier(at t: Int64) -> Tier {
        // Last hold with `from <= t` (holds are sorted and disjoint).
        let lo = holds.partitionPoint { $0.from > t }
        guard lo > 0, t < holds[lo - 1].to else { return .unknown }
        return holds[lo - 1].tier
    }

    /// Whether the tier is known and at or below `target` at any instant of
    /// the closed window `[from, to]` (the tuning's "covered" test, spelled
    /// out plainly for cross-checks).
    public func isAtOrBelow(_ target: Tier, anywhereIn from: Int64, _ to: Int64) -> Bool {
        holds.contains { $0.tier.rawValue <= target.rawValue && $0.from <= to && $0.to > from }
    }
}

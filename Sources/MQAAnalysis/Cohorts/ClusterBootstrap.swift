import Foundation
import MQABase

/// A 95 % interval `[lower, upper]`.
public struct ConfidenceInterval: Sendable, Equatable {
    public var lower: Double
    public var upper: Double

    public init(lower: Double, upper: Double) {
        self.lower = lower
        self.upper = upper
    }

    public func contains(_ x: Double) -> Bool { lower <= x && x <= upper }

    /// `[lo, hi]`; an infinite end (a ratio over a zero) is `null`.
    public var json: JSON {
        func end(_ x: Double) -> JSON { x.isFinite ? .double(x) : .null }
        return .array([end(lower), end(upper)])
    }
}

/// How the intervals are made (`Docs/cohorts.md`): a percentile bootstrap
/// that resamples whole meetings with replacement, because participants of
/// one meeting share its network, server and publishers and are not
/// independent. Seeded: the same data and options give the same intervals.
public struct BootstrapOptions: Sendable, Equatable {
    /// Resamples drawn (each of as many meetings as the data holds).
    public var replicates: Int
    /// The seed of the resampling (SplitMix64, one stream per replicate).
    public var seed: UInt64
    /// A value seen in fewer meetings than this, or by fewer participants
    /// than `minParticipants`, is flagged `insufficient`: its interval says
    /// little, and it is never ranked above a value with enough data.
    public var minMeetings: Int
    public var minParticipants: Int

    public static let defaultSeed: UInt64 = 2026_11_29
    public static let `default` = BootstrapOptions()

    public init(replicates: Int = 1000, seed: UInt64 = BootstrapOptions.defaultSeed, minMeetings: Int = 5, minParticipants: Int = 10) {
        self.replicates = replicates
        self.seed = seed
        self.minMeetings = minMeetings
        self.minParticipants = minParticipants
    }

    /// Calls `body` once per replicate with how many times each of
    /// `meetings` meetings was drawn (the counts sum to `meetings`).
    /// Replicate `r` depends only on the seed and `r`.
    func forEachReplicate(meetings: Int, _ body: (Int, UnsafeBufferPointer<Int32>) -> Void) {
        guard meetings > 0 else { return }
        var counts = [Int32](repeating: 0, count: meetings)
        for r in 0..<replicates {
            var rng = SplitMix64(seed: seed, stream: UInt64(r))
            counts.withUnsafeMutableBufferPointer { c in
                for i in 0..<meetings { c[i] = 0 }
                for _ in 0..<meetings { c[rng.below(meetings)] += 1 }
            }
            counts.withUnsafeBufferPointer { body(r, $0) }
        }
    }

    /// The 2.5 % and 97.5 % nearest-rank percentiles of the defined
    /// (non-NaN) replicate values; `nil` when fewer than 90 % of the
    /// replicates gave a value (the figure is too often undefined, e.g. a
    /// value missing from many resamples, for its interval to mean much).
    func interval(_ values: [Double]) -> ConfidenceInterval? {
        var v = values.filter { !$0.isNaN }
        guard !v.isEmpty, v.count * 10 >= values.count * 9 else { return nil }
        v.sort()
        let lo = NearestRank.rank(perMille: 25, count: v.count), hi = NearestRank.rank(perMille: 975, count: v.count)
        return ConfidenceInterval(lower: v[lo - 1], upper: v[hi - 1])
    }

    /// The two-sided p-value of "the ratio is 1": the log of the point
    /// ratio over the bootstrap standard error of the log ratio, inflated by
    /// √(k/(k−1)) for `clusters` = k meetings, against Student's t with
    /// k − 1 degrees of freedom. Smooth, unlike counting replicates beyond
    /// 1 (whose tail counts are noisy exactly where a corrected threshold
    /// looks), and with the heavier tails a statistic of few meetings has.
    static func pValue(ratio: Double?, replicates ratios: [Double], clusters: Int) -> Double {
        guard let ratio, ratio > 0, ratio.isFinite else { return 1 }
        return tTest(log(ratio), ratios.lazy.filter { $0 > 0 && $0.isFinite }.map { log($0) }, of: ratios.count, clusters: clusters)
    }

    /// Whether at least 90 % of the replicate ratios are positive and
    /// finite: defined in the log, as `pValue(ratio:…)` needs.
    static func mostlyPositive(_ ratios: [Double]) -> Bool {
        ratios.count { $0 > 0 && $0.isFinite } * 10 >= ratios.count * 9
    }

    /// The two-sided p-value of "no difference" where A's figure is 0 and
    /// no ratio exists: the point difference B − A against the replicates'
    /// differences, as `pValue(ratio:…)` does with the log ratio.
    static func pValue(difference d: Double, replicates differences: [Double], clusters: Int) -> Double {
        guard d.isFinite else { return 1 }
        return tTest(d, differences.lazy.filter(\.isFinite), of: differences.count, clusters: clusters)
    }

    /// `point` over the bootstrap standard error of `values` (the defined
    /// ones of `count` replicates), inflated by √(k/(k−1)) for k =
    /// `clusters`, against Student's t with k − 1 degrees of freedom; 1
    /// (no claim) when fewer than 90 % of the replicates are defined.
    private static func tTest(_ point: Double, _ values: some Sequence<Double>, of count: Int, clusters: Int) -> Double {
        guard clusters >= 2 else { return 1 }
        var n = 0.0, sum = 0.0, squares = 0.0
        for l in values {
            n += 1
            sum += l
            squares += l * l
        }
        // Too often undefined (as for `interval`): claim nothing.
        guard n >= 2, n * 10 >= Double(count) * 9 else { return 1 }
        let variance = max(0, (squares - sum * sum / n) / (n - 1))
        let k = Double(clusters)
        let se = variance.squareRoot() * (k / (k - 1)).squareRoot()
        if se == 0 { return point == 0 ? 1 : 0 }
        return StudentT.twoSidedP(point / se, df: k - 1)
    }
}

/// Holm's step-down correction: the adjusted p-values, in the input's
/// order. Rejecting where the adjusted value is below α keeps the chance
/// of any false alarm over the whole family at most α, whatever the
/// metrics' correlation.
public enum Holm {
    public static func adjusted(_ p: [Double]) -> [Double] {
        let k = p.count
        let order = p.indices.sorted { (p[$0], $0) < (p[$1], $1) }
        var out = [Double](repeating: 1, count: k)
        var running = 0.0
        for (rank, i) in order.enumerated() {
            running = max(running, min(1, Double(k - rank) * p[i]))
            out[i] = running
        }
        return out
    }
}

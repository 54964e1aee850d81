import MQABase
import MQAModel

/// Nearest-rank percentiles, the only kind the spec uses: the ⌈q·n⌉-th
/// smallest value. Computed in integers (`q` in whole percent) because
/// `0.95 * 20` in doubles may land a hair above 19 and round up a rank.
public enum NearestRank {
    /// The 1-based rank ⌈percent·n/100⌉, at least 1; `n` must be > 0.
    public static func rank(percent: Int, count n: Int) -> Int {
        max(1, (percent * n + 99) / 100)
    }

    /// The 1-based rank ⌈perMille·n/1000⌉, at least 1, for quantiles
    /// between whole percents (2.5 %: 25).
    public static func rank(perMille: Int, count n: Int) -> Int {
        max(1, (perMille * n + 999) / 1000)
    }

    /// The nearest-rank percentile of ascending `sorted`; `nil` when empty.
    public static func value<T>(_ sorted: [T], percent: Int) -> T? {
        sorted.isEmpty ? nil : sorted[rank(percent: percent, count: sorted.count) - 1]
    }
}

/// Mean and the percentiles the reports show, over one metric's warm values.
public struct Distribution: Sendable, Equatable {
    public var count: Int
    /// Sum in report order, divided by the count.
    public var mean: Double
    public var p5: Double
    public var p50: Double
    public var p95: Double

    /// `nil` for no values (the report then shows `null`, never a zero).
    /// Reorders `values` in place: a caller that hands its array over (as
    /// the analysis does with a column of millions of values) pays no copy.
    /// The three ranks are found by selection, not a full sort: ~4x fewer
    /// comparisons, and the k-th smallest value is the same either way.
    public init?(_ values: consuming [Double]) {
        guard !values.isEmpty else { return nil }
        let n = values.count
        count = n
        mean = values.reduce(0, +) / Double(n)
        // Values near Double's largest (valid numbers in a log) overflow
        // the sum, and an infinite mean is written as null, which means "no
        // reports". Divided first, the mean of finite values is finite;
        // only then, so ordinary means keep their bits.
        if !mean.isFinite && values.allSatisfy(\.isFinite) { mean = values.reduce(0) { $0 + $1 / Double(n) } }
        let k5 = NearestRank.rank(percent: 5, count: n) - 1
        let k50 = NearestRank.rank(percent: 50, count: n) - 1
        let k95 = NearestRank.rank(percent: 95, count: n) - 1
        (p5, p50, p95) = values.withUnsafeMutableBufferPointer { v in
            // After selecting rank k50, the smaller ranks lie before it and
            // the larger after: each later selection searches only its side,
            // which leaves out k50 itself (a selection may move any element
            // of its range but the rank's).
            Selection.select(v, rank: k50, in: 0..<n)
            let median = v[k50]
            if k5 < k50 { Selection.select(v, rank: k5, in: 0..<k50) }
            if k95 > k50 { Selection.select(v, rank: k95, in: k50 + 1..<n) }
            return (k5 < k50 ? v[k5] : median, median, k95 > k50 ? v[k95] : median)
        }
    }

    /// `{"mean": …}` plus the named percentiles (`"p5"`, `"p50"`, `"p95"`);
    /// the mean rounded to `places` decimals (it is derived), the
    /// percentiles as logged (each is one report's value), or rounded to
    /// `valuePlaces` where a value may be derived (an E-model MOS).
    public func json(_ percentiles: [String], places: Int, valuePlaces: Int? = nil) -> JSON {
        var fields: [(String, JSON)] = [("mean", .rounded(mean, places: places))]
        func value(_ x: Double) -> JSON { valuePlaces.map { JSON.rounded(x, places: $0) } ?? .double(x) }
        for p in percentiles {
            switch p {
            case "p5": fields.append((p, value(p5)))
            case "p50": fields.append((p, value(p50)))
            case "p95": fields.append((p, value(p95)))
            default: break
            }
        }
        return .object(fields)
    }
}

/// The k-th smallest of a range, in place (quickselect); NaN-free values
/// only (a NaN compares false both ways).
package enum Selection {
    /// The `k`-th smallest of `values` (0-based), as sorting them gives it,
    /// for a caller that wants one rank and no sort: `values` is reordered
    /// by a selection, or sorted where a NaN leaves no total order (the
    /// answer is then the sort's, as it always was).
    package static func smallest(_ k: Int, of values: inout [Double]) -> Double {
        if values.contains(where: \.isNaN) {
            values.sort()
            return values[k]
        }
        values.withUnsafeMutableBufferPointer { select($0, rank: k, in: 0..<$0.count) }
        return values[k]
    }

    /// Reorders `v[range]` so that `v[rank]` holds the value it would hold
    /// were the range sorted, with no larger value before it and no smaller
    /// one after. Median-of-three pivots; a range that keeps shrinking too
    /// slowly (adversarial order) is sorted instead, so the worst case stays
    /// O(n log n).
    ///
    /// The partitions do not branch on the values: every element is moved
    /// and the boundary advances by the comparison's result. A report's
    /// metrics are in random order around their pivot, so the branching
    /// partition mispredicted about every other comparison (3 % of an
    /// ingest's time under `perf`, for 0.7 % of its instructions). Values
    /// equal to the pivot (a loss column is mostly zeros) are split off by
    /// a second pass when the rank lies above the pivot, so ties cost one
    /// pass, not one element per pass.
    package static func select(_ v: UnsafeMutableBufferPointer<Double>, rank k: Int, in range: Range<Int>) {
        var lo = range.lowerBound, hi = range.upperBound - 1
        var budget = 2 * (Int.bitWidth - max(range.count, 1).leadingZeroBitCount) + 8
        while hi > lo {
            if hi - lo < 16 || budget == 0 {
                var part = UnsafeMutableBufferPointer(rebasing: v[lo...hi])
                part.sort()
                return
            }
            budget -= 1
            // The median of three, moved to v[lo]: pivot value p.
            let mid = lo + (hi - lo) / 2
            if v[mid] < v[lo] { v.swapAt(mid, lo) }
            if v[hi] < v[lo] { v.swapAt(hi, lo) }
            if v[hi] < v[mid] { v.swapAt(hi, mid) }
            v.swapAt(lo, mid)
            let p = v[lo]
            // [lo + 1, less) < p <= [less, r).
            let less = partition(v, from: lo + 1, through: hi) { $0 < p }
            let m = less - 1
            v.swapAt(lo, m)  // [lo, m) < p == v[m] <= (m, hi]
            if k < m { hi = m - 1; continue }
            if k == m { return }
            // (m, equal) == p < [equal, hi]: the rank may fall among the ties.
            let equal = partition(v, from: m + 1, through: hi) { $0 <= p }
            if k < equal { return }
            lo = equal
        }
    }

    /// Moves the elements of `v[from...through]` for which `isLeft` holds
    /// to its front, in one pass with no branch on the values; returns the
    /// index after the last of them.
    @inline(__always)
    private static func partition(
        _ v: UnsafeMutableBufferPointer<Double>, from: Int, through: Int, _ isLeft: (Double) -> Bool
    ) -> Int {
        var boundary = from
        var r = from
        while r <= through {
            let x = v[r]
            v[r] = v[boundary]
            v[boundary] = x
            boundary &+= isLeft(x) ? 1 : 0
            r &+= 1
        }
        return boundary
    }
}

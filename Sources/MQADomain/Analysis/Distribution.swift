/// Nearest-rank percentiles, the only kind the spec uses: the ⌈q·n⌉-th
/// smallest value. Computed in integers (`q` in whole percent) because
/// `0.95 * 20` in doubles may land a hair above 19 and round up a rank.
public enum NearestRank {
    /// The 1-based rank ⌈percent·n/100⌉, at least 1; `n` must be > 0.
    public static func rank(percent: Int, count n: Int) -> Int {
        max(1, (percent * n + 99) / 100)
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
    /// Sorts `values` in place: a caller that hands its array over (as the
    /// analysis does with a column of millions of values) pays no copy.
    public init?(_ values: consuming [Double]) {
        guard !values.isEmpty else { return nil }
        count = values.count
        mean = values.reduce(0, +) / Double(values.count)
        values.sort()
        p5 = NearestRank.value(values, percent: 5)!
        p50 = NearestRank.value(values, percent: 50)!
        p95 = NearestRank.value(values, percent: 95)!
    }

    /// `{"mean": …}` plus the named percentiles (`"p5"`, `"p50"`, `"p95"`).
    public func json(_ percentiles: [String]) -> JSON {
        var fields: [(String, JSON)] = [("mean", .double(mean))]
        for p in percentiles {
            switch p {
            case "p5": fields.append((p, .double(p5)))
            case "p50": fields.append((p, .double(p50)))
            case "p95": fields.append((p, .double(p95)))
            default: break
            }
        }
        return .object(fields)
    }
}

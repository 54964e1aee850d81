import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// One y scale per metric for every participant of a meeting, so two
/// participants' charts compare at a glance (a line twice as high is twice
/// the loss).
///
/// Rule: the top of a metric's scale is the nice ceiling (1, 2 or 5 × 10ⁿ)
/// of the largest 99th percentile of any participant's values, at least
/// twice the issue threshold (so the threshold line sits at most halfway
/// up) and at most four times it (so it sits at least a quarter up, never
/// squashed onto zero by one spike). Values above the top are drawn at
/// the top and the panel says it clips. Bitrate has no threshold: its top
/// is the ceiling of the largest 99th percentile, at least 500 kbps.
struct ChartScales {
    struct Metric {
        var name: String
        var unit: String
        /// A closure rather than a key path: it runs once per point, and a
        /// key path lookup costs several times a call.
        var value: @Sendable (QualitySeries.Point) -> Double
        var threshold: Double?
        var top: Double
        /// Whether some participant's values go above `top`.
        var clips: Bool
    }

    var metrics: [Metric]

    /// One pass over `series`, so a lazy sequence makes each participant's
    /// series once and drops it before the next.
    init(_ series: some Sequence<QualitySeries>) {
        typealias T = IssueThresholds
        let specs: [(String, String, @Sendable (QualitySeries.Point) -> Double, Double?, Double)] = [
            ("loss %", "%", { $0.loss }, T.lossP95Pct, 1),
            ("RTT ms", "ms", { $0.rtt }, T.rttP95Ms, 100),
            ("jitter ms", "ms", { $0.jitter }, T.jitterP95Ms, 10),
            ("kbps", "kbps", { $0.bitrate }, nil, 500),
        ]
        // Per metric, the largest 99th percentile and value of any participant.
        var p99 = [Double](repeating: 0, count: specs.count), peak = p99
        for s in series where !s.points.isEmpty {
            for (k, spec) in specs.enumerated() {
                var values = s.points.map(spec.2)
                // One rank and the largest value: selections, not a sort
                // (sorting each participant's four series was 4 % of an
                // HTML batch).
                p99[k] = max(p99[k], Selection.smallest(NearestRank.rank(percent: 99, count: values.count) - 1, of: &values))
                peak[k] = max(peak[k], Selection.smallest(values.count - 1, of: &values))
            }
        }
        metrics = specs.enumerated().map { k, spec in
            let (name, unit, value, threshold, floor) = spec
            var t = SVGCharts.niceCeiling(max(p99[k], floor))
            if let threshold { t = min(max(t, SVGCharts.niceCeiling(2 * threshold)), 4 * threshold) }
            return Metric(name: name, unit: unit, value: value, threshold: threshold, top: t, clips: peak[k] > t)
        }
    }
}

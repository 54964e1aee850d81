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

    /// The metrics: name, unit, value of a point, the report column it
    /// comes from, issue threshold, floor of the top.
    typealias Spec = (name: String, unit: String, value: @Sendable (QualitySeries.Point) -> Double,
                      column: KeyPath<ReportColumns, [Double]> & Sendable, threshold: Double?, floor: Double)
    static let specs: [Spec] = [
        ("loss %", "%", { $0.loss }, \.loss, IssueThresholds.lossP95Pct, 1),
        ("RTT ms", "ms", { $0.rtt }, \.rtt, IssueThresholds.rttP95Ms, 100),
        ("jitter ms", "ms", { $0.jitter }, \.jitter, IssueThresholds.jitterP95Ms, 10),
        ("kbps", "kbps", { $0.bitrate }, \.bitrate, nil, 500),
    ]

    /// What the scales read of one participant, per metric of `specs`: the
    /// 99th percentile and the largest of its warm reports' values.
    struct Figures {
        var p99: [Double] = []
        var peak: [Double] = []

        /// Adds one metric's values (in any order; reordered here).
        mutating func add(_ values: inout [Double]) {
            // One rank and the largest value: selections, not a sort
            // (sorting each participant's four series was 4 % of an HTML
            // batch).
            p99.append(Selection.smallest(NearestRank.rank(percent: 99, count: values.count) - 1, of: &values))
            peak.append(Selection.smallest(values.count - 1, of: &values))
        }

        /// The figures of a series' points; nil without any.
        init?(_ series: QualitySeries) {
            guard !series.points.isEmpty else { return nil }
            for spec in ChartScales.specs {
                var values = series.points.map(spec.value)
                add(&values)
            }
        }

        /// The figures of the warm reports `reports` walks, one metric's
        /// values held at a time (a series of millions of points is never
        /// held for its scales); nil without any. Throws what reading the
        /// reports throws.
        init?(_ reports: ConnectedReports, config: TierConfig) throws {
            var values: [Double] = []
            for spec in ChartScales.specs {
                values.removeAll(keepingCapacity: true)
                try reports.forEachWarmRun(coldStartMs: config.coldStartMs) { w in
                    w.block[keyPath: spec.column].withUnsafeBufferPointer { v in
                        w.forEach { i, _ in values.append(v[i]) }
                    }
                }
                guard !values.isEmpty else { return nil }
                add(&values)
            }
        }
    }

    /// One pass over `series`, so a lazy sequence makes each participant's
    /// series once and drops it before the next.
    init(_ series: some Sequence<QualitySeries>) {
        self.init(figures: series.lazy.compactMap(Figures.init))
    }

    /// The scales of participants' figures (nil: no warm report).
    init(figures: some Sequence<Figures>) {
        let specs = ChartScales.specs
        // Per metric, the largest 99th percentile and value of any participant.
        var p99 = [Double](repeating: 0, count: specs.count), peak = p99
        for f in figures {
            for k in specs.indices {
                p99[k] = max(p99[k], f.p99[k])
                peak[k] = max(peak[k], f.peak[k])
            }
        }
        metrics = specs.enumerated().map { k, spec in
            var t = SVGCharts.niceCeiling(max(p99[k], spec.floor))
            if let threshold = spec.threshold { t = min(max(t, SVGCharts.niceCeiling(2 * threshold)), 4 * threshold) }
            return Metric(name: spec.name, unit: spec.unit, value: spec.value, threshold: spec.threshold, top: t, clips: peak[k] > t)
        }
    }
}

import Testing
@testable import MQAReports
import MQAAnalysis
import MQABase

/// The rule of `ChartScales`: a metric's top is the nice ceiling of the
/// largest 99th percentile of any participant (at least its floor), and
/// the panel says it clips when a value lies above it.
@Suite struct ChartScalesTests {
    /// A participant whose bitrate takes `values`, one report each 2 s.
    private func series(_ uid: String, bitrates values: [Double]) -> QualitySeries {
        var s = QualitySeries(Fixtures.sfu.clients[0], config: TierConfig())
        s.uid = uid
        s.points = values.enumerated().map { i, v in
            QualitySeries.Point(ts: Int64(i) * 2000, mos: 4, loss: 0, rtt: 50, jitter: 5, bitrate: v, breaksLine: i == 0)
        }
        return s
    }

    private func bitrate(_ scales: ChartScales) -> ChartScales.Metric { scales.metrics[3] }

    @Test func theTopIsTheCeilingOfTheLargest99thPercentile() {
        // 1..1000 shuffled: the 99th percentile (nearest rank 990) is 990,
        // whose nice ceiling is 1000; the other participant stays lower.
        var g = SplitMix64(seed: 99)
        var values = (1...1000).map(Double.init)
        for i in values.indices.reversed() { values.swapAt(i, g.below(i + 1)) }
        let scales = ChartScales([series("a", bitrates: values), series("b", bitrates: Array(repeating: 700, count: 50))])
        #expect(bitrate(scales).top == 1000)
        #expect(!bitrate(scales).clips)
    }

    @Test func theRankIsTheNearestRankOf99Percent() {
        // 1,000 reports, the high ones shuffled in: 11 at 1,500 reach rank
        // 990 (the top is the ceiling of 1,500); 10 leave it at 100 (the
        // floor, and the panel clips).
        var g = SplitMix64(seed: 7)
        for (high, top, clips) in [(11, 2000.0, false), (10, 500.0, true)] {
            var values = Array(repeating: 100.0, count: 1000 - high) + Array(repeating: 1500.0, count: high)
            for i in values.indices.reversed() { values.swapAt(i, g.below(i + 1)) }
            let metric = bitrate(ChartScales([series("a", bitrates: values)]))
            #expect(metric.top == top && metric.clips == clips, "\(high) high values")
        }
    }

    @Test func aSpikeAboveThePercentileClipsWithoutRaisingTheTop() {
        // Ten spikes in 1,000 reports are the top 1 %: the scale ignores them.
        let values = (0..<1000).map { i in i % 100 == 7 ? 20_000.0 : 600 }
        let scales = ChartScales([series("a", bitrates: values)])
        #expect(bitrate(scales).top == 1000)
        #expect(bitrate(scales).clips)
        // Below the 500 kbps floor, the floor decides.
        #expect(bitrate(ChartScales([series("c", bitrates: [10, 20, 30])])).top == 500)
    }
}

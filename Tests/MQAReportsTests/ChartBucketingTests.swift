import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQATestSupport

/// A chart's series bucketed as it is made (a client of millions of
/// reports is never held as points) draws what the whole series draws, and
/// its scales come out the same from the reports as from the points.
@Suite struct ChartBucketingTests {
    /// A client of `n` reports at random steps, with gaps, a reconnect,
    /// cold and null-MOS reports, and values that jump.
    static func client(_ n: Int, rng: inout SplitMix64) -> ClientLog {
        var b = ClientBuilder("a")
        var t: Int64 = 1_000_000
        b.join(t)
        for k in 0..<n {
            t += Int64.random(in: 1...2500, using: &rng)
            if Int.random(in: 0..<60, using: &rng) == 0 { t += 20_000 }
            if k == n / 2 { b.disconnect(t); t += 500; b.reconnect(t) }
            let cold = Int.random(in: 0..<20, using: &rng) == 0
            b.report(t, mos: Int.random(in: 0..<30, using: &rng) == 0 ? nil : Double.random(in: 1...4.6, using: &rng),
                     rtt: cold ? 0 : Double.random(in: 10...900, using: &rng), loss: Double.random(in: 0...20, using: &rng),
                     jitter: Double.random(in: 0...80, using: &rng), bitrate: Double.random(in: 0...4000, using: &rng))
        }
        b.leave(t + 1000)
        return b.build()
    }

    /// The chart's rule, one metric at a time over every point: the
    /// bucket a point falls in by time, a new entry at each bucket and
    /// each line break, else the worse value kept.
    static func bucket(_ points: [QualitySeries.Point], range: (start: Int64, end: Int64),
                       value: (QualitySeries.Point) -> Double, worse: (Double, Double) -> Bool) -> [(ts: Int64, v: Double, breaks: Bool)] {
        guard points.count > SVGCharts.maxPoints else { return points.map { ($0.ts, value($0), $0.breaksLine) } }
        let span = Double(max(range.end - range.start, 1))
        var out: [(ts: Int64, v: Double, breaks: Bool)] = []
        var current = -1
        for p in points {
            let b = Int(Double(p.ts - range.start) / span * Double(SVGCharts.maxPoints))
            if b != current || out.isEmpty || p.breaksLine {
                out.append((p.ts, value(p), p.breaksLine))
                current = b
            } else if worse(value(p), out[out.count - 1].v) {
                out[out.count - 1].v = value(p)
            }
        }
        return out
    }

    @Test func aSeriesBucketedAsItIsMadeDrawsTheWholeSeries() throws {
        var rng = SplitMix64(seed: 61)
        var bucketed = 0
        for round in 0..<40 {
            let n = [50, 400, 421, 900, 5000][round % 5] + Int.random(in: 0..<20, using: &rng)
            let client = Self.client(n, rng: &rng)
            let config = TierConfig()
            // The chart's range: the client's, or wider (a meeting's).
            let first = client.events.first!.ts, last = client.events.last!.ts
            let range = (start: first - Int64(round % 3) * 60_000, end: last + Int64(round % 2) * 90_000)
            let axis = SVGCharts.TimeAxis(start: range.start, end: range.end, x0: 0, x1: 1)
            let whole = QualitySeries(client, config: config)
            let made = try QualitySeries(client, reports: ConnectedReports(client), config: config, bucketing: range)
            let metrics = [({ (p: QualitySeries.Point) in p.mos }, { (a: Double, b: Double) in a < b })]
                + ChartScales.specs.map { ($0.value, { (a: Double, b: Double) in a > b }) }
            for (value, worse) in metrics {
                let a = Self.bucket(whole.points, range: range, value: value, worse: worse)
                let b = SVGCharts.bucket(made.points, range: axis, value: value)
                #expect(a.map(\.ts) == b.map(\.ts) && a.map(\.breaks) == b.map(\.breaks), "round \(round)")
                #expect(a.map(\.v.bitPattern) == b.map(\.v.bitPattern), "round \(round)")
            }
            #expect(made.sdkTiers == whole.sdkTiers && made.reconnects == whole.reconnects)
            if whole.points.count > SVGCharts.maxPoints {
                #expect(made.points.count < whole.points.count, "round \(round): bucketed")
                bucketed += 1
            } else {
                #expect(made == whole, "round \(round): a short series is kept whole")
            }
            // Scales from the reports, a metric at a time, or from the points.
            let fromPoints = try #require(ChartScales.Figures(whole))
            let fromReports = try #require(try ChartScales.Figures(ConnectedReports(client), config: config))
            #expect(fromPoints.p99 == fromReports.p99 && fromPoints.peak == fromReports.peak, "round \(round)")
        }
        #expect(bucketed >= 16)
    }
}

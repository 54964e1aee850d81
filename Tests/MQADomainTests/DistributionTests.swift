import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Percentiles by selection must equal those of a sorted copy, whatever the
/// values' order, ties and count.
@Suite struct DistributionTests {
    func sortedReference(_ values: [Double]) -> (Double, Double, Double) {
        let s = values.sorted()
        return (NearestRank.value(s, percent: 5)!, NearestRank.value(s, percent: 50)!, NearestRank.value(s, percent: 95)!)
    }

    @Test func selectionEqualsSortingOnRandomInputs() {
        var rng = SplitMix64(seed: 41)
        for round in 0..<400 {
            let n = [1, 2, 3, 5, 17, 20, 100, 1000, 4099][round % 9] + Int.random(in: 0..<3, using: &rng)
            let distinct = [2, 10, 1_000_000][round % 3]  // many ties, some, few
            var values = (0..<n).map { _ in Double(Int.random(in: 0..<distinct, using: &rng)) / 8 }
            switch round % 4 {
            case 1: values.sort()
            case 2: values.sort(by: >)
            case 3: values = values.indices.map { Double($0 % 7) }  // organ-pipe-ish repeats
            default: break
            }
            let d = Distribution(values)!
            let (p5, p50, p95) = sortedReference(values)
            #expect((d.p5, d.p50, d.p95) == (p5, p50, p95), "round \(round), n \(n)")
            #expect(d.mean == values.reduce(0, +) / Double(n))
            #expect(d.count == n)
        }
    }

    @Test func emptyHasNoDistribution() {
        #expect(Distribution([]) == nil)
    }
}

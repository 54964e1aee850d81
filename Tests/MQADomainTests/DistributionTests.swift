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

    /// The contract the three selections rely on: the rank's value, no
    /// larger value before it and no smaller one after, on any subrange.
    @Test func selectionPartitionsAroundTheRank() {
        var rng = SplitMix64(seed: 43)
        for round in 0..<600 {
            let n = [1, 2, 16, 17, 33, 200, 2500][round % 7] + Int.random(in: 0..<4, using: &rng)
            let distinct = [1, 3, 50, 1_000_000][round % 4]
            var values = (0..<n).map { _ in Double(Int.random(in: 0..<distinct, using: &rng)) - 1.5 }
            if round % 5 == 1 { values.sort() }
            if round % 5 == 2 { values.sort(by: >) }
            let lower = Int.random(in: 0..<n, using: &rng)
            let upper = Int.random(in: lower + 1...n, using: &rng)
            let k = Int.random(in: lower..<upper, using: &rng)
            let expected = values[lower..<upper].sorted()[k - lower]
            let outside = Array(values[..<lower]) + Array(values[upper...])
            values.withUnsafeMutableBufferPointer { Selection.select($0, rank: k, in: lower..<upper) }
            #expect(values[k] == expected, "round \(round)")
            #expect(values[lower..<k].allSatisfy { $0 <= expected }, "round \(round)")
            #expect(values[(k + 1)..<upper].allSatisfy { $0 >= expected }, "round \(round)")
            #expect(Array(values[..<lower]) + Array(values[upper...]) == outside, "round \(round)")
        }
    }

    @Test func emptyHasNoDistribution() {
        #expect(Distribution([]) == nil)
    }

    /// Valid but huge values (an RTT of 1.7e308 ms is a number a log may
    /// hold) overflowed the sum: a mean of infinity, written as null, which
    /// says "no reports". Ordinary means keep their bits.
    @Test func hugeValuesHaveAFiniteMean() {
        #expect(Distribution([1.7e308, 1.7e308, 1.0e308])?.mean == 1.7e308 / 3 + 1.7e308 / 3 + 1.0e308 / 3)
        #expect(Distribution([0.1, 0.2, 0.3])?.mean == (0.1 + 0.2 + 0.3) / 3)
        // And the JSON writes it: rounding scaled 1.7e308 to infinity (null).
        #expect(JSON.rounded(1.7e308, places: 1).rendered() == JSON.double(1.7e308).rendered())
        #expect(JSON.rounded(12.345, places: 1).rendered() == "12.3")
    }
}

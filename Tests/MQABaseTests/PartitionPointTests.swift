import Testing
@testable import MQABase

/// `partitionPoint`, the binary search behind the time lookups of the
/// incident rules, the tier timeline and the importers, against a linear
/// scan on random sorted arrays (duplicates, empty, slices).
@Suite struct PartitionPointTests {
    @Test func matchesALinearScan() {
        var r = SplitMix64(seed: 20_261_205)
        for _ in 0..<500 {
            let count = r.int(in: 0...40)
            let values = (0..<count).map { _ in Int64(r.int(in: 0...30)) }.sorted()
            let t = Int64(r.int(in: -2...32))
            #expect(values.partitionPoint { $0 >= t } == (values.firstIndex { $0 >= t } ?? values.count))
            #expect(values.partitionPoint { $0 > t } == (values.firstIndex { $0 > t } ?? values.count))
            // A slice answers in the base's indices.
            let from = r.int(in: 0...count)
            let slice = values[from...]
            #expect(slice.partitionPoint { $0 > t } == (slice.firstIndex { $0 > t } ?? values.count))
        }
    }
}

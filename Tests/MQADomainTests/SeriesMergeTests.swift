import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Merging new items into a client's series when nothing is stored: runs
/// between dropped repeats are copied whole, and that must keep exactly the
/// items the item-by-item rule keeps.
@Suite struct SeriesMergeTests {
    /// The rule, item by item: an item is dropped when an item kept before
    /// it at the same time is the same.
    static func reference<S: MergeableSeries>(_ new: S) -> (kept: [Int], duplicates: Int) {
        var kept: [Int] = []
        var duplicates = 0
        for j in 0..<new.count {
            if kept.contains(where: { new.ts($0) == new.ts(j) && new.same($0, new, j) }) {
                duplicates += 1
            } else {
                kept.append(j)
            }
        }
        return (kept, duplicates)
    }

    @Test func eventsWithRepeatsKeepWhatTheRuleKeeps() {
        var r = SplitMix64(seed: 31)
        let payloads = [#"{}"#, #"{"tier":"good"}"#, #"{"tier":"bad"}"#].map { Array($0.utf8) }
        for _ in 0..<300 {
            var new = EventSeries()
            var t: Int64 = 0
            for _ in 0..<Int(r.next() % 40) {
                t += Int64(r.next() % 3)  // equal times are common
                new.append(ts: t, kind: EventKind(rawValue: UInt8(6 + r.next() % 2))!, payload: payloads[Int(r.next() % 3)][...])
            }
            let (merged, duplicates) = EventSeries.merge(stored: EventSeries(), new: new)
            let expected = Self.reference(new)
            #expect(duplicates == expected.duplicates)
            #expect(merged.block.ts == expected.kept.map { new.block.ts[$0] })
            #expect(merged.block.kinds == expected.kept.map { new.block.kinds[$0] })
            #expect(merged.block.payloads == expected.kept.map { new.block.payloads[$0] })
        }
    }

    @Test func reportsWithRepeatsKeepWhatTheRuleKeeps() {
        var r = SplitMix64(seed: 32)
        let values: [DecimalNumber] = [.null, DecimalNumber(mantissa: 0, exponent: 0), DecimalNumber(mantissa: 42, exponent: -1)]
        for _ in 0..<300 {
            let n = Int(r.next() % 40)
            var ts: [Int64] = []
            var t: Int64 = 0
            for _ in 0..<n { t += Int64(r.next() % 3); ts.append(t) }
            let columns = (0..<ReportColumn.allCases.count).map { _ in (0..<n).map { _ in values[Int(r.next() % 3)] } }
            let new = ReportSeries(ts: ts, columns: columns)
            let (merged, duplicates) = ReportSeries.merge(stored: ReportSeries(), new: new)
            let expected = Self.reference(new)
            #expect(duplicates == expected.duplicates)
            #expect(merged.ts == expected.kept.map { ts[$0] })
            #expect(merged.columns == columns.map { c in expected.kept.map { c[$0] } })
        }
    }
}

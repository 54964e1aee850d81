import Testing
@testable import MQAAnalysis
import MQABase

/// `SignalsByUid` groups in place what `Dictionary(grouping:by:)` grouped
/// by copying: the same uids in sorted order, each with its signals in
/// their first order.
@Suite struct SignalsByUidTests {
    @Test func groupsAsDictionaryGroupingDoes() {
        var g = SplitMix64(seed: 33)
        for round in 0..<200 {
            let n = g.int(in: 0...(round < 20 ? 6 : 400))
            let uids = (0..<g.int(in: 1...9)).map { "u\($0 * 7 % 10)\(String(repeating: "é", count: $0 % 3))" }
            let signals = (0..<n).map { k in
                // Equal uids and times throughout, told apart by `start`'s
                // position: the order within a uid must survive.
                IncidentSignal(kind: IncidentKind.allCases[g.int(in: 0...IncidentKind.allCases.count - 1)],
                               uid: uids[g.int(in: 0...uids.count - 1)], start: Int64(k), end: Int64(k + g.int(in: 0...9)))
            }
            let expected = Dictionary(grouping: signals, by: \.uid)
            let grouped = SignalsByUid(signals)
            #expect(grouped.runs.map(\.uid) == expected.keys.sorted(), "round \(round)")
            for (uid, range) in grouped.runs { #expect(Array(grouped.signals[range]) == expected[uid], "round \(round), \(uid)") }
            for uid in uids + ["nobody"] { #expect(Array(grouped[uid]) == (expected[uid] ?? []), "round \(round), \(uid)") }
            #expect(grouped.signals.count == n)
        }
    }
}

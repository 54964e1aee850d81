import Foundation
import Testing
@testable import MQACLI
import MQABase
import MQAStore

/// `report meeting --all` renders meetings in groups bounded by what they
/// store, so a fleet of big meetings is never held at once.
@Suite struct BatchGroupTests {
    static func groups(_ sizes: [Int]) -> [Range<Int>] {
        let ids = sizes.indices.map { "m-\($0)" }
        var out: [Range<Int>] = [], i = 0
        while i < ids.count {
            let end = ReportMeetingCommand.groupEnd(ids, from: i, items: { sizes[Int($0.dropFirst(2))!] })
            guard end > i else {
                Issue.record("an empty group at \(i)")
                break
            }
            out.append(i..<end)
            i = end
        }
        return out
    }

    @Test func groupsStopAtTheirCountOrTheirItems() {
        let limit = ReportMeetingCommand.groupItems, count = ReportMeetingCommand.groupMeetings
        // Small meetings: groups of `groupMeetings`.
        #expect(Self.groups(Array(repeating: 5_000, count: 70)) == [0..<count, count..<2 * count, 2 * count..<70])
        // Big ones: as many as fit, and one over the limit alone.
        let big = limit / 2 - 10
        #expect(Self.groups([big, big, big, limit + 1, 10, 10]) == [0..<2, 2..<3, 3..<4, 4..<6])
        // Exactly at the limit fits; one more item does not.
        #expect(Self.groups([limit - 1, 1, 1]) == [0..<2, 2..<3])
        // Every meeting is in exactly one group, in order.
        var r = SplitMix64(seed: 7)
        let sizes = (0..<500).map { _ in r.chance(0.3) ? r.int(in: 0...2 * limit) : r.int(in: 0...20_000) }
        let g = Self.groups(sizes)
        #expect(g.map(\.count).reduce(0, +) == sizes.count)
        #expect(zip(g, g.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(g.allSatisfy { $0.count == 1 || sizes[$0].reduce(0, +) <= limit })
        #expect(g.allSatisfy { !$0.isEmpty && $0.count <= count })
    }

    /// The counts the groups are sized by: a meeting's stored reports and
    /// events, what its export holds, without decoding a chunk.
    @Test func storedItemsAreWhatTheExportHolds() throws {
        let dir = Scratch()
        let db = dir.file("store.sqlite")
        let a = dir.write("a.ndjson", Lines.meeting("m-a", reports: 30) + Lines.meeting("m-a", uid: "bob", reports: 7))
        let b = dir.write("b.ndjson", Lines.meeting("m-b", reports: 3))
        #expect(MQA.run(["ingest", "--db", db, a, b]).status == 0)
        let counts = try EventStore(path: db).storedItemCounts()
        for m in ["m-a", "m-b"] {
            let export = MQA.run(["export", "--db", db, "--meeting", m])
            #expect(export.status == 0)
            #expect(counts[m] == export.stdout.split(separator: "\n").count)
        }
        #expect(counts == ["m-a": 41, "m-b": 5])  // a join, the reports and a leave each
    }
}

import Testing
@testable import MQABase
@testable import MQAStore

/// `EventBlock` keeps payloads back to back; these check it against the
/// obvious model, an array per payload.
struct EventBlockTests {
    @Test func appendedRangesMatchTheModel() {
        var r = SplitMix64(seed: 2026)
        for _ in 0..<200 {
            var source = EventBlock()
            var model: [(Int64, UInt8, [UInt8])] = []
            for _ in 0..<Int(r.int(0...40)) {
                let e = (r.int(0...1000), UInt8(r.int(0...20)), (0..<Int(r.int(0...12))).map { _ in UInt8(truncatingIfNeeded: r.next()) })
                source.append(ts: e.0, kind: e.1, payload: e.2)
                model.append(e)
            }
            #expect(source == EventBlock(ts: model.map(\.0), kinds: model.map(\.1), payloads: model.map(\.2)))
            // Pieces of it appended in random order to a non-empty block.
            var target = EventBlock(ts: [7], kinds: [1], payloads: [[9, 9]])
            var expected: [(Int64, UInt8, [UInt8])] = [(7, 1, [9, 9])]
            for _ in 0..<4 {
                let a = Int(r.int(0...Int64(model.count))), b = Int(r.int(0...Int64(model.count)))
                let range = min(a, b)..<max(a, b)
                target.append(source, range: range)
                expected += model[range]
            }
            #expect(target.count == expected.count)
            #expect(target.ts == expected.map(\.0))
            #expect(target.kinds == expected.map(\.1))
            #expect(target.payloads == expected.map(\.2))
            for i in 0..<target.count {
                #expect(target.withPayload(i) { Array($0) } == expected[i].2)
                let j = Int(r.int(0...Int64(target.count - 1)))
                #expect(target.same(i, target, j) == (expected[i].1 == expected[j].1 && expected[i].2 == expected[j].2))
            }
        }
    }
}

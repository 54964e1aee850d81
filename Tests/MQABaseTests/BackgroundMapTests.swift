import Testing
import MQABase

/// `BackgroundMap` gives each input's output in the inputs' order, however
/// the work was spread; `batchEnd` cuts batches by count and by items.
@Suite struct BackgroundMapTests {
    @Test func resultsComeInTheInputsOrder() {
        var g = SplitMix64(seed: 9)
        for n in [0, 1, 2, 7, 100, 1_000] {
            let inputs = (0..<n).map { _ in g.int(in: 0...5_000) }
            // Uneven work, so that later inputs often finish first.
            let map = BackgroundMap(inputs) { x -> String in
                var h: UInt64 = 0
                for k in 0..<x { h = SplitMix64.mix(h &+ UInt64(k)) }
                return "\(x):\(h & 1)"
            }
            let expected = inputs.map { x -> String in
                var h: UInt64 = 0
                for k in 0..<x { h = SplitMix64.mix(h &+ UInt64(k)) }
                return "\(x):\(h & 1)"
            }
            #expect(map.results == expected, "\(n) inputs")
            #expect(map.results == expected, "asked twice")
        }
    }

    @Test func batchesEndAtTheCountOrBeforeTheItemsOverflow() {
        let items = [5, 5, 5, 20, 1, 1, 1, 1, 1]
        func batches(maxCount: Int, maxItems: Int) -> [[Int]] {
            var out: [[Int]] = [], i = 0
            while i < items.count {
                let end = BackgroundMap<Void>.batchEnd(items, from: i, maxCount: maxCount, maxItems: maxItems) { $0 }
                out.append(Array(items[i..<end]))
                i = end
            }
            return out
        }
        #expect(batches(maxCount: 32, maxItems: 10) == [[5, 5], [5], [20], [1, 1, 1, 1, 1]])
        #expect(batches(maxCount: 2, maxItems: 100) == [[5, 5], [5, 20], [1, 1], [1, 1], [1]])
        // A first element over the limit still makes a batch of its own.
        #expect(batches(maxCount: 32, maxItems: 0) == items.map { [$0] })
        #expect(batches(maxCount: 32, maxItems: .max) == [items])
    }

    /// The pipeline delivers what one element at a time would: every
    /// element in order, a big one through `alone`, and on a read that
    /// throws, everything read before it, then the error.
    @Test func aPipelineDeliversInOrderAsOneAtATimeWould() throws {
        struct Stop: Error {}
        let sizes = [3, 3, 50, 3, 3, 3, 3, 3, 40, 3]
        for failAt in [nil, 0, 1, 4, 7, 9] as [Int?] {
            var delivered: [String] = []
            do {
                try BackgroundMap<String>.pipeline(
                    Array(sizes.indices), maxCount: 3, maxItems: 10, items: { sizes[$0] },
                    read: { k in
                        if k == failAt { throw Stop() }
                        return k
                    },
                    transform: { "t\($0)" }, alone: { "alone\($0)" },
                    deliver: { k, out in delivered.append("\(k):\(out)") })
                #expect(failAt == nil)
            } catch is Stop {
                #expect(failAt != nil)
            }
            let expected = sizes.indices.prefix(failAt ?? sizes.count).map { "\($0):\(sizes[$0] > 10 ? "alone" : "t")\($0)" }
            #expect(delivered == expected, "failing at \(String(describing: failAt))")
        }
    }
}

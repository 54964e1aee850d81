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
}

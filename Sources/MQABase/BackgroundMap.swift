import Dispatch

/// Each input transformed on other threads, from the moment this is
/// made; `results` waits for them and gives them in the inputs' order.
///
/// What lets the one thread that owns a SQLite connection read the next
/// batch of meetings while the batch it read before is analysed: reading
/// and the analyses overlap, and every core is busy.
public final class BackgroundMap<Output: Sendable>: @unchecked Sendable {
    private let done = DispatchGroup()
    private let slots: ConcurrentSlots<Output>
    private let count: Int

    public init<Input: Sendable>(_ inputs: [Input], _ transform: @escaping @Sendable (Input) -> Output) {
        count = inputs.count
        let slots = ConcurrentSlots<Output>(count: inputs.count)
        self.slots = slots
        DispatchQueue.global().async(group: done) {
            DispatchQueue.concurrentPerform(iterations: inputs.count) { k in slots.set(k, transform(inputs[k])) }
        }
    }

    /// Blocks until every input is transformed.
    public func wait() { done.wait() }

    /// The outputs, in the inputs' order, once all are made.
    public var results: [Output] {
        wait()
        return (0..<count).map { slots.get($0)! }
    }
}

extension BackgroundMap {
    /// Where a batch of `elements` that starts at `from` ends: after
    /// `maxCount` elements, or before the one that would take the batch
    /// past `maxItems` (never before its first): batches of meetings
    /// bounded by how much of the store they hold.
    public static func batchEnd<C: RandomAccessCollection>(_ elements: C, from: C.Index, maxCount: Int, maxItems: Int,
                                                           items: (C.Element) -> Int) -> C.Index {
        var end = from, held = 0
        while end < elements.endIndex && elements.distance(from: from, to: end) < maxCount {
            let n = items(elements[end])
            if end > from && held + n > maxItems { break }
            held += n
            end = elements.index(after: end)
        }
        return end
    }
}

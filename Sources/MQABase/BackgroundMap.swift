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

extension BackgroundMap {
    /// Each of `elements` read on this thread (`read`: SQLite stays on it)
    /// and transformed on the others, handed to `deliver` in order. Reads
    /// go in batches (`batchEnd` by `items`), and a batch is transformed
    /// while the next is read. An element of more than `maxItems` goes
    /// alone, on this thread (`alone`, else read and transformed here), so
    /// that two such are never held at once.
    ///
    /// Delivers what one element at a time would have delivered: a read
    /// that throws first delivers the batch before it and the elements of
    /// its own batch read before it, then the error stands.
    public static func pipeline<Element, Input: Sendable>(
        _ elements: [Element], maxCount: Int, maxItems: Int, items: (Element) -> Int,
        read: (Element) throws -> Input, transform: @escaping @Sendable (Input) -> Output,
        alone: ((Element) throws -> Output)? = nil, deliver: (Element, Output) throws -> Void
    ) throws {
        var pending: (elements: ArraySlice<Element>, map: BackgroundMap<Output>)?
        // A batch in flight is waited for however this ends: its workers
        // never outlive the caller.
        defer { pending?.map.wait() }
        func flush() throws {
            guard let p = pending else { return }
            pending = nil
            for (element, output) in zip(p.elements, p.map.results) { try deliver(element, output) }
        }
        var i = 0
        while i < elements.count {
            if items(elements[i]) > maxItems {
                try flush()
                try deliver(elements[i], try alone?(elements[i]) ?? transform(read(elements[i])))
                i += 1
                continue
            }
            let end = batchEnd(elements, from: i, maxCount: maxCount, maxItems: maxItems, items: items)
            var inputs: [Input] = []
            do {
                for element in elements[i..<end] { inputs.append(try read(element)) }
            } catch {
                try flush()
                for (element, input) in zip(elements[i...], inputs) { try deliver(element, transform(input)) }
                throw error
            }
            try flush()
            pending = (elements[i..<end], BackgroundMap(inputs, transform))
            i = end
        }
        try flush()
    }
}

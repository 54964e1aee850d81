import MQABase

extension EventStore {
    /// The most payload bytes an event chunk holds, unless one event alone
    /// is more. 2,048 events of ordinary payloads (100–300 bytes) stay far
    /// below it, so those chunks are cut by count alone, as before. Without
    /// it a chunk of 2,048 events of up to a line's payload each could
    /// reach 2 GiB, and encoding one took about seven times its payload
    /// in memory: 30 lines of 1 MB titles took an ingest to 268 MB.
    package static let chunkPayloadBytes = 4 << 20

    /// `count` items cut into chunks of `chunkCapacity`, the last one the rest.
    static func countRanges(_ count: Int) -> [Range<Int>] {
        stride(from: 0, to: count, by: chunkCapacity).map { $0..<min($0 + chunkCapacity, count) }
    }
}

extension MergeableSeries {
    /// The chunks of the items, sorted: by count alone.
    func chunkRanges() -> [Range<Int>] { EventStore.countRanges(count) }
}

extension EventSeries {
    /// The chunks of the events, sorted: each as many as fit in
    /// `chunkCapacity` events and `chunkPayloadBytes` of payload, and at
    /// least one. Cut greedily from the first event on, so that a log in
    /// pieces, in order, is cut as the whole log is.
    func chunkRanges() -> [Range<Int>] {
        guard payloadByteCount > EventStore.chunkPayloadBytes else { return EventStore.countRanges(count) }
        var ranges: [Range<Int>] = []
        var start = 0
        while start < count {
            let limit = min(start + EventStore.chunkCapacity, count)
            let from = block.payloadRange(start).lowerBound
            var end = start + 1
            while end < limit && block.payloadEnds[end] - from <= EventStore.chunkPayloadBytes { end += 1 }
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }

    var heldBytes: Int { payloadByteCount + 17 * count }
}

extension ReportSeries {
    var heldBytes: Int { 48 * count }
}

import MQABase
import MQAModel

/// How much of a client's stored series a merge decodes at once. A merge
/// over more goes window by window (`EventStore.mergeInWindows`): a
/// shuffled log of one client overlaps all of its chunks with every batch,
/// and decoding them together held the whole series twice over (4M
/// shuffled reports took an ingest to 785 MB).
package struct MergeWindow: Sendable {
    /// A window ends once it holds this many items, or this many bytes
    /// (`heldBytes`), where a chunk ends before the next one starts.
    package var items = 16 * EventStore.chunkCapacity
    package var bytes = 16 << 20
    /// Chunks past which a merge goes by windows whatever their items: an
    /// event chunk of large payloads may hold 4 MiB (a shuffled log of 150
    /// titles of 1 MB merged 15 such chunks whole: 402 MB). A log that
    /// comes in order merges with one or two.
    package var chunks = 4

    package init() {}

    /// Never by windows: what the windows are checked against.
    package static let whole = MergeWindow(items: .max, bytes: .max, chunks: .max)

    package init(items: Int, bytes: Int, chunks: Int) {
        (self.items, self.bytes, self.chunks) = (items, bytes, chunks)
    }
}

extension EventStore {
    /// Whether a merge with `candidates` goes window by window.
    func mergesInWindows(_ candidates: [ChunkPlace]) -> Bool {
        candidates.count > mergeWindow.chunks || candidates.reduce(0) { $0 + $1.count } > mergeWindow.items
    }

    /// `candidates` (in time order) merged with `sorted` as `storeSeries`
    /// merges them, a window of chunks at a time: the same chunks come out,
    /// as chunks are cut greedily from the first item and a window's last,
    /// unfinished chunk is carried into the next. Windows end only where a
    /// chunk ends before the next one starts, and each window takes the
    /// new items before the next window's first time, so the items of one
    /// millisecond (which repeats are looked for among) meet in one window.
    func mergeInWindows<S: MergeableSeries>(
        _ sorted: S, candidates: [ChunkPlace], table: ChunkTable,
        decode: (Int64, UnsafeRawBufferPointer) throws -> S,
        insert: (S, Range<Int>) throws -> Void
    ) throws -> Int {
        var duplicates = 0
        var carried = S()
        var nextNew = 0
        var start = 0
        while start < candidates.count {
            // Chunks decoded until the window holds enough, ending only
            // where a chunk ends before the next one starts.
            var stored = carried
            var end = start
            while end < candidates.count {
                let chunk = try readChunk(table: table, candidates[end], decode: decode)
                stored.append(chunk, range: 0..<chunk.count)
                end += 1
                let full = stored.count >= mergeWindow.items || stored.heldBytes >= mergeWindow.bytes
                if full && end < candidates.count && candidates[end - 1].lastTs < candidates[end].firstTs { break }
            }
            // New items up to the next window's first time (all the rest
            // for the last window).
            var newEnd = sorted.count
            if end < candidates.count {
                let bound = candidates[end].firstTs
                newEnd = nextNew
                while newEnd < sorted.count && sorted.ts(newEnd) < bound { newEnd += 1 }
            }
            var new = S()
            new.append(sorted, range: nextNew..<newEnd)
            let (merged, dropped) = S.merge(stored: stored, new: new)
            duplicates += dropped
            try deleteChunks(table: table, candidates[start..<end].map(\.id))
            let ranges = merged.chunkRanges()
            let last = end == candidates.count ? ranges.count : ranges.count - 1
            for range in ranges[0..<last] { try insert(merged, range) }
            carried = S()
            if last < ranges.count { carried.append(merged, range: ranges[last]) }
            (start, nextNew) = (end, newEnd)
        }
        return duplicates
    }
}

import MQABase
import MQAModel

extension EventStore {
    /// Stored items a merge decodes at once, unless tests say otherwise
    /// (`mergeWindowItems`). A merge whose chunks hold more
    /// goes window by window (`mergeInWindows`): a shuffled log of one
    /// client overlaps all of its chunks with every batch, and decoding
    /// them together held the whole series twice over (4M shuffled
    /// reports took an ingest to 785 MB).
    package static let defaultMergeWindowItems = 16 * chunkCapacity

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
            var end = start
            var items = 0
            while end < candidates.count {
                items += candidates[end].count
                end += 1
                if items >= mergeWindowItems && end < candidates.count
                    && candidates[end - 1].lastTs < candidates[end].firstTs { break }
            }
            // New items up to the next window's first time (all the rest
            // for the last window).
            var newEnd = sorted.count
            if end < candidates.count {
                let bound = candidates[end].firstTs
                newEnd = nextNew
                while newEnd < sorted.count && sorted.ts(newEnd) < bound { newEnd += 1 }
            }
            var stored = carried
            for candidate in candidates[start..<end] {
                let chunk = try readChunk(table: table, candidate, decode: decode)
                stored.append(chunk, range: 0..<chunk.count)
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

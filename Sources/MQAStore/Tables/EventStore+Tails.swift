import MQABase
import MQAModel

/// One client's items in a chunk table from `items.ts(0)` on, kept by the
/// writer while a log's pieces come one after another. Only what
/// `storeSeries` inserted as it is: any other change to the client's
/// chunks, an undone input or a rollback drops it, and the compaction then
/// decodes the stored chunks as before. Bounded, so a client of millions
/// of items is never held twice.
struct TailItems {
    /// Items held at most, and about the memory they may take (events of
    /// large payloads); past either the compaction decodes.
    static let limit = 8 * EventStore.chunkCapacity
    static let byteLimit = 4 * EventStore.chunkPayloadBytes
    var client: Int64
    /// A `ReportSeries` or an `EventSeries`, by table.
    var items: Any
}

extension EventStore {
    /// Rewrites the tails `storeSeries` left short (`openTails`) into full
    /// chunks, in the open transaction (before its COMMIT): for each such client, its chunks
    /// from the recorded time on are decoded, concatenated (they are
    /// sorted and disjoint: nothing to merge) and written again in chunks
    /// as `chunkRanges` cuts them, as merging each piece into the trailing
    /// chunk would have left them, but with each item encoded once more at
    /// most. A tail whose chunks hold `chunkCapacity` items but the last is
    /// left as it is.
    ///
    /// Whatever `openTails` names, the content stays the same: a stale
    /// entry (an input undone, a client id given anew) costs a look only.
    func compactTails() throws {
        for table in ChunkTable.allCases { try compactTails(table, except: nil) }
        openTails.removeAll()
        tailItems.removeAll()
    }

    /// Keeps what `client` holds in `table` from `candidate` (its trailing
    /// chunk, `nil` when it had none) on, once `piece` (sorted, after it)
    /// is inserted as it is: the candidate's items, known when they are
    /// the end of what is kept, then the piece. Anything unknown forgets.
    func keepTail<S: MergeableSeries>(_ table: ChunkTable, client: Int64, after candidate: ChunkPlace?, piece: S) {
        var kept = S()
        if let candidate {
            guard let held: S = heldTail(table, client: client),
                  held.count >= candidate.count, held.ts(held.count - 1) == candidate.lastTs
            else { tailItems[table] = nil; return }
            let from = openTails[table]?[client] ?? candidate.firstTs
            // Everything from the open tail's start, or the candidate alone.
            let start = from < candidate.firstTs ? 0 : held.count - candidate.count
            guard held.ts(start) == from else { tailItems[table] = nil; return }
            kept.append(held, range: start..<held.count)
        }
        // A piece with no chunk before it is kept by its last chunk alone:
        // the only one a later piece's tail can start at.
        let last = candidate == nil ? piece.chunkRanges().last?.lowerBound ?? 0 : 0
        kept.append(piece, range: last..<piece.count)
        tailItems[table] = kept.count <= TailItems.limit && kept.heldBytes <= TailItems.byteLimit
            ? TailItems(client: client, items: kept) : nil
    }

    /// `client`'s kept items of `table` (`TailItems`), if those are its.
    private func heldTail<S: MergeableSeries>(_ table: ChunkTable, client: Int64) -> S? {
        tailItems[table].flatMap { $0.client == client ? $0.items as? S : nil }
    }

    /// The open input was undone: the tails filled within it are short
    /// again (the filling was undone with it), so they are open again.
    func reopenTailsFilledInInput() {
        tailItems.removeAll()
        for (table, tails) in tailsFilledInInput {
            for (client, from) in tails {
                openTails[table, default: [:]][client] = min(from, openTails[table]?[client] ?? from)
            }
        }
        tailsFilledInInput.removeAll()
    }

    /// Compacts the open tails of `table` but `client`'s. Called when
    /// another client's items come: a log's pieces come one after the
    /// other, so its tail is complete by then, and the pages it frees are
    /// filled by the inserts that follow. Left to the commit, the short
    /// chunks of all clients were in the file at once, and their pages
    /// stayed free after it (7 % of the store on 199 files).
    func compactTails(_ table: ChunkTable, except client: Int64?) throws {
        guard let tails = openTails[table], !tails.isEmpty else { return }
        for (other, from) in tails.sorted(by: { $0.key < $1.key }) where other != client {
            switch table {
            case .reports:
                try compactTail(table: .reports, client: other, from: from, decode: decodeReports) { merged, range in
                    try self.insert(EventStore.reportRow(merged, range, codec: &self.codec), client: other)
                }
            case .events:
                try compactTail(table: .events, client: other, from: from, decode: decodeEvents) { merged, range in
                    try self.insert(EventStore.eventRow(merged, range, codec: &self.codec), client: other)
                }
            }
            openTails[table]?[other] = nil
            tailsFilledInInput[table, default: [:]][other] = from
        }
    }

    private func compactTail<S: MergeableSeries>(
        table: ChunkTable, client: Int64, from: Int64,
        decode: (Int64, UnsafeRawBufferPointer) throws -> S,
        insert: (S, Range<Int>) throws -> Void
    ) throws {
        let select = try db.cached(
            "SELECT id, count, first_ts, last_ts FROM \(table.rawValue) WHERE client_id = ? AND last_ts >= ? ORDER BY first_ts, id")
        select.bind(1, client)
        select.bind(2, from)
        var places: [ChunkPlace] = []
        while try select.step() {
            places.append(ChunkPlace(id: select.int64(0), count: select.int(1), firstTs: select.int64(2), lastTs: select.int64(3)))
        }
        let held: S? = heldTail(table, client: client)
        if held != nil { tailItems[table] = nil }
        guard places.dropLast().contains(where: { $0.count < EventStore.chunkCapacity }) else { return }
        if let held, held.count == places.reduce(0, { $0 + $1.count }), held.count > 0,
           held.ts(0) == places[0].firstTs, held.ts(held.count - 1) == places[places.count - 1].lastTs {
            try deleteChunks(table: table, places.map(\.id))
            for range in held.chunkRanges() { try insert(held, range) }
            return
        }
        // Chunk by chunk: the chunks cut from what is read so far but the
        // last are final, so at most about two chunks are held. Events of
        // large payloads make many short chunks, and a log of them in
        // pieces a tail of its whole length (300 MB for 300 lines of 1 MB).
        var pending = S()
        var read: [Int64] = []
        for place in places {
            let chunk = try readChunk(table: table, place, decode: decode)
            pending.append(chunk, range: 0..<chunk.count)
            read.append(place.id)
            let ranges = pending.chunkRanges()
            guard ranges.count > 1, let rest = ranges.last else { continue }
            try deleteChunks(table: table, read)
            read = []
            for range in ranges.dropLast() { try insert(pending, range) }
            var left = S()
            left.append(pending, range: rest)
            pending = left
        }
        try deleteChunks(table: table, read)
        for range in pending.chunkRanges() { try insert(pending, range) }
    }
}

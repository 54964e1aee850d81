import MQABase
import MQAModel

/// One client's quality reports in exact decimal form, the unit of chunk
/// encoding and of merging.
package struct ReportSeries: MergeableSeries {
    var ts: [Int64] = []
    /// One array per `ReportColumn`, in its order.
    var columns: [[DecimalNumber]] = ReportColumn.allCases.map { _ in [] }

    package init() {}
    init(ts: [Int64], columns: [[DecimalNumber]]) {
        self.ts = ts
        self.columns = columns
    }

    package var count: Int { ts.count }
    func ts(_ i: Int) -> Int64 { ts[i] }

    /// In place (`_modify`): a get/set pair would copy the whole column
    /// on every append.
    subscript(_ column: ReportColumn) -> [DecimalNumber] {
        get { columns[column.rawValue] }
        _modify { yield &columns[column.rawValue] }
    }

    /// Appends reports `range` of a parsed batch: times from `ts`, values
    /// one per column for each report from `values`, in `ReportColumn`
    /// order (the order of the parsed batch's value array). Each column
    /// grows once and is filled through its buffer: appending value by
    /// value checked every column's uniqueness per report (this is 4 %
    /// fewer instructions on the writer thread).
    package mutating func append(_ range: Range<Int>, ts times: [Int64], values: [DecimalNumber]) {
        let n = range.count
        guard n > 0 else { return }
        ts.append(contentsOf: times[range])
        let width = ReportColumn.allCases.count
        let base = range.lowerBound * width
        values.withUnsafeBufferPointer { v in
            for c in 0..<width {
                let old = columns[c].count
                columns[c].append(contentsOf: repeatElement(DecimalNumber.null, count: n))
                columns[c].withUnsafeMutableBufferPointer { column in
                    for k in 0..<n { column[old + k] = v[base + width * k + c] }
                }
            }
        }
    }

    mutating func reserve(toHold a: ReportSeries, _ b: ReportSeries) {
        reserve(count: a.count + b.count)
    }

    mutating func reserve(count: Int) {
        ts.reserveCapacity(count)
        for c in columns.indices { columns[c].reserveCapacity(count) }
    }

    mutating func append(_ other: ReportSeries, range: Range<Int>) {
        ts += other.ts[range]
        for c in columns.indices { columns[c] += other.columns[c][range] }
    }

    mutating func append(_ other: ReportSeries, at i: Int) {
        ts.append(other.ts[i])
        for c in ReportColumn.allCases { self[c].append(other[c][i]) }
    }

    /// Item `i`'s value of `c` as duplicates compare it: a number, `mos` 0
    /// as null (both mean "not available").
    private func compared(_ c: ReportColumn, _ i: Int) -> Double? {
        let v = columns[c.rawValue][i].doubleValue
        return c == .mos && v == 0 ? nil : v
    }

    /// What `same` compares, hashed by its `Double`: equal numbers have
    /// equal doubles (unequal ones may share one, which a hash allows).
    func hashItem(_ i: Int, into hasher: inout Hasher) {
        for c in ReportColumn.allCases { hasher.combine(compared(c, i)) }
    }

    /// Two reports are duplicates when every value is equal as a number:
    /// decimals compared exactly, as they are stored and exported (so
    /// `bitrate: 4.999999999999999999` is not `5`, nor `1e-400` `0`, though
    /// their doubles are); a binary value by its double; `mos` 0 as null.
    func same(_ i: Int, _ other: ReportSeries, _ j: Int) -> Bool {
        for c in ReportColumn.allCases {
            let (x, y) = (compared(c, i), other.compared(c, j))
            if x != y { return false }
            guard x != nil else { continue }
            let (a, b) = (columns[c.rawValue][i], other.columns[c.rawValue][j])
            if a.isBinary || b.isBinary || a == b { continue }
            if a.normalized != b.normalized { return false }
        }
        return true
    }
}

extension EventStore {
    /// Reports per chunk. Large enough that zstd finds the series' patterns,
    /// small enough that one meeting's chunks decode in microseconds.
    package static let chunkCapacity = 2048

    /// Stores `series` (any order, may repeat stored reports) for a client,
    /// keeping the invariant that a client's chunks are sorted, disjoint and
    /// free of duplicates. Returns the number of duplicates dropped.
    /// `ready`: the rows of `series` already chunked and encoded (sorted
    /// and free of repeats, see `PreparedSeries`), inserted as they are
    /// when nothing stored is to be merged with them.
    package func storeReports(_ series: ReportSeries, client: Int64, ready: [ReportChunkRow]? = nil) throws -> Int {
        try storeSeries(series, client: client, table: .reports, decode: decodeReports,
            insert: { merged, range in try self.insertChunk(merged, range, client: client) },
            insertReady: ready.map { rows in { for row in rows { try self.insert(row, client: client) } } })
    }

    /// A stored report chunk's reports; `row` names it in the error.
    func decodeReports(row: Int64, blob: UnsafeRawBufferPointer) throws -> ReportSeries {
        let block = try codec.decode(blob)
        guard block.columns.count == ReportColumn.allCases.count else { throw StoreError.inconsistent("report chunk \(row) has \(block.columns.count) columns") }
        return ReportSeries(ts: block.ts, columns: block.columns)
    }

    /// The merge-on-write shared by reports and events: stored chunks that
    /// overlap the new items' time range, plus a trailing chunk that is not
    /// full yet and ends before them (merging it keeps chunks full when a
    /// log arrives in pieces), are decoded, merged with the new items,
    /// deleted and written again in chunks of `chunkCapacity`. With nothing
    /// to merge with, `insertReady` (when given) stores the series' chunks
    /// made beforehand instead.
    ///
    /// When the trailing chunk is all there is to merge with and the new
    /// chunks are ready, they are inserted after it as they are, and the
    /// client's tail is left to fill when another client's items come, or
    /// at the commit (`compactTails`): a log in k pieces had its last chunk
    /// decoded and encoded again k times, on the writer's thread (29 % of
    /// the instructions of an ingest of ~100 KB pieces); now it is once.
    func storeSeries<S: MergeableSeries>(
        _ series: S, client: Int64, table: ChunkTable,
        decode: (Int64, UnsafeRawBufferPointer) throws -> S,
        insert: (S, Range<Int>) throws -> Void,
        insertReady: (() throws -> Void)? = nil
    ) throws -> Int {
        guard series.count > 0 else { return 0 }
        if let tails = openTails[table], tails.count > 1 || (tails.count == 1 && tails[client] == nil) {
            try compactTails(table, except: client)
        }
        let sorted = series.sortedByTime()
        let first = sorted.ts(0)
        let candidates = try mergeCandidates(table: table, client: client, first: first, last: sorted.ts(sorted.count - 1))
        if let insertReady {
            if candidates.isEmpty {
                try insertReady()
                keepTail(table, client: client, after: nil, piece: sorted)
                return 0
            }
            if candidates.count == 1, candidates[0].lastTs < first {
                keepTail(table, client: client, after: candidates[0], piece: sorted)
                let from = candidates[0].firstTs
                openTails[table, default: [:]][client] = min(from, openTails[table]?[client] ?? from)
                try insertReady()
                return 0
            }
        }
        if tailItems[table]?.client == client { tailItems[table] = nil }
        if mergesInWindows(candidates) {
            return try mergeInWindows(sorted, candidates: candidates, table: table, decode: decode, insert: insert)
        }
        var stored = S()
        for candidate in candidates {
            let chunk = try readChunk(table: table, candidate, decode: decode)
            stored.append(chunk, range: 0..<chunk.count)
        }
        let (merged, duplicates) = S.merge(stored: stored, new: sorted)
        try deleteChunks(table: table, candidates.map(\.id))
        for range in merged.chunkRanges() { try insert(merged, range) }
        return duplicates
    }

    /// A chunk row's place: what choosing it for a merge needs, not its data.
    struct ChunkPlace {
        var id: Int64
        var count: Int
        var firstTs: Int64
        var lastTs: Int64
    }

    /// Decodes chunk `place` of `table`, checking its count.
    func readChunk<S: MergeableSeries>(table: ChunkTable, _ place: ChunkPlace, decode: (Int64, UnsafeRawBufferPointer) throws -> S) throws -> S {
        let select = try db.cached("SELECT data FROM \(table.rawValue) WHERE id = ?")
        select.bind(1, place.id)
        defer { select.reset() }
        guard try select.step() else { throw StoreError.inconsistent("\(table.rawValue) row \(place.id) is gone") }
        let chunk = try select.withBlob(0) { try decode(place.id, $0) }
        guard chunk.count == place.count else {
            throw StoreError.inconsistent("\(table.rawValue) row \(place.id) says \(place.count) items, holds \(chunk.count)")
        }
        return chunk
    }

    func deleteChunks(table: ChunkTable, _ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        let delete = try db.cached("DELETE FROM \(table.rawValue) WHERE id = ?")
        for id in ids {
            delete.reset()
            delete.bind(1, id)
            try delete.run()
        }
    }

    /// The chunks new items from `first` through `last` must be merged
    /// with: those overlapping that time range, and a trailing one that is
    /// not full yet and ends before it, in time order. The trailing one is
    /// the last in reading order (`first_ts`, `id`): two chunks may end in
    /// the same millisecond (events of one millisecond cut by bytes), and
    /// the earlier of them, merged, would pass the later one.
    ///
    /// A chunk that starts in the millisecond where the last of them ends
    /// is taken too (and so on): left as it is, it would be read before
    /// the rewritten chunk of that millisecond, which gets a larger id.
    private func mergeCandidates(table: ChunkTable, client: Int64, first: Int64, last: Int64) throws -> [ChunkPlace] {
        var end = last
        while true {
            let places = try mergeCandidates(table: table, client: client, first: first, through: end)
            let reach = places.last.map { max($0.lastTs, end) } ?? end
            if reach == end { return places }
            end = reach
        }
    }

    private func mergeCandidates(table: ChunkTable, client: Int64, first: Int64, through last: Int64) throws -> [ChunkPlace] {
        let select = try db.cached(
            """
            SELECT id, count, first_ts, last_ts FROM \(table.rawValue)
            WHERE client_id = ?1 AND first_ts <= ?3 AND (last_ts >= ?2
              OR id = (SELECT id FROM \(table.rawValue) WHERE client_id = ?1 AND last_ts < ?2
                       ORDER BY first_ts DESC, id DESC LIMIT 1) AND count < ?4)
            ORDER BY first_ts, id
            """)
        select.bind(1, client)
        select.bind(2, first)
        select.bind(3, last)
        select.bind(4, EventStore.chunkCapacity)
        var places: [ChunkPlace] = []
        while try select.step() {
            places.append(ChunkPlace(id: select.int64(0), count: select.int(1), firstTs: select.int64(2), lastTs: select.int64(3)))
        }
        return places
    }

    /// The INSERT of one report chunk row: its time range and count, per
    /// value column its min, max and sum (the MOS over valid values only),
    /// and the encoded chunk.
    private static let insertChunkSQL: String = {
        var names = ["client_id", "first_ts", "last_ts", "count"]
        for c in ReportColumn.allCases {
            if c == .mos { names.append("mos_count") }
            names += ["min", "max", "sum"].map { "\(c.name)_\($0)" }
        }
        names.append("data")
        let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
        return "INSERT INTO report_chunks (\(names.joined(separator: ", "))) VALUES (\(marks))"
    }()

    private func insertChunk(_ s: ReportSeries, _ range: Range<Int>, client: Int64) throws {
        try insert(EventStore.reportRow(s, range, codec: &codec), client: client)
    }

    /// A report chunk row of reports `range` of `s`: encoded, with its
    /// statistics. Pure, so that it can run off the writer's thread.
    static func reportRow(_ s: ReportSeries, _ range: Range<Int>, codec: inout ChunkCodec) throws -> ReportChunkRow {
        // A client's reports are mostly one chunk: its arrays as they are.
        let block = range == 0..<s.count
            ? SeriesBlock(ts: s.ts, columns: s.columns)
            : SeriesBlock(ts: Array(s.ts[range]), columns: s.columns.map { Array($0[range]) })
        var row = ReportChunkRow(firstTs: block.ts.first!, lastTs: block.ts.last!, count: block.ts.count, blob: try codec.encode(block))
        // Kept for the summaries (`RecentChunks`) as `ReportColumns` reads
        // a chunk back: a null MOS is NaN, any other null 0.
        let keeping = codec.recent != nil
        var kept = ReportColumns()
        if keeping { kept.ts = block.ts }
        for c in ReportColumn.allCases {
            var count = 0
            var lo = Double.infinity
            var hi = -Double.infinity
            var sum = 0.0
            // A null MOS is NaN here: no stored number is NaN (JSON has none).
            var doubles: [Double] = []
            DecimalNumber.appendDoubles(of: block[c], to: &doubles, null: c == .mos ? .nan : 0)
            if keeping {
                switch c {
                case .loss: kept.loss = doubles
                case .rtt: kept.rtt = doubles
                case .jitter: kept.jitter = doubles
                case .bitrate: kept.bitrate = doubles
                case .mos: kept.mos = doubles
                }
            }
            for d in doubles {
                // 0 and null are placeholders: the MOS statistics count only
                // the values in [1, 5], and say how many there were.
                if c == .mos { guard d >= 1 && d <= 5 else { continue } }
                count += 1
                lo = min(lo, d)
                hi = max(hi, d)
                sum += d
            }
            row.stats.append((count, lo, hi, sum))
        }
        codec.recent?.remember(row.blob, reports: kept)
        return row
    }

    func insert(_ row: ReportChunkRow, client: Int64) throws {
        let insert = try db.cached(EventStore.insertChunkSQL)
        insert.bind(1, client)
        insert.bind(2, row.firstTs)
        insert.bind(3, row.lastTs)
        insert.bind(4, row.count)
        var index: Int32 = 5
        for (c, stat) in zip(ReportColumn.allCases, row.stats) {
            if c == .mos {
                insert.bind(index, stat.count)
                index += 1
            }
            if stat.count > 0 {
                insert.bind(index, stat.lo)
                insert.bind(index + 1, stat.hi)
                insert.bind(index + 2, stat.sum)
            }
            index += 3
        }
        insert.bind(index, blob: row.blob)
        try insert.run()
    }

    /// A client's `count` stored reports in time order, decoded chunk by
    /// chunk straight into doubles (the exact decimals of a whole series,
    /// 88 bytes a report, are never held at once). A damaged chunk throws,
    /// or with `onDamage` is reported there and skipped.
    func reportColumns(client: Int64, count: Int, meeting: String, uid: String,
                       onDamage: ((StoreDamage) -> Void)? = nil) throws -> ReportColumns {
        var columns = ReportColumns()
        columns.reserve(count)
        let cursor = try reportChunks(client: client, meeting: meeting, uid: uid, onDamage: onDamage)
        while try cursor.next(appendingTo: &columns) {}
        return columns
    }

    /// A client's report chunks one at a time, in time order: memory follows
    /// the chunk, not the series (a client may have millions of reports).
    func reportChunks(client: Int64, meeting: String, uid: String,
                      onDamage: ((StoreDamage) -> Void)? = nil) throws -> ReportChunkCursor {
        // Cached: a statement prepared per client costs far more than the
        // read when a store holds millions of one-client meetings. One
        // cursor at a time (callers read a client's chunks to the end).
        let select = try db.cached("SELECT id, data FROM report_chunks WHERE client_id = ? ORDER BY first_ts, id")
        select.bind(1, client)
        return ReportChunkCursor(select: select, codec: codec, meeting: meeting, uid: uid, onDamage: onDamage)
    }

    /// The number of reports a meeting's clients have (from the chunk rows,
    /// no decoding).
    public func reportCount(meeting: String) throws -> Int {
        let s = try db.cached("""
            SELECT coalesce(sum(r.count), 0) FROM report_chunks r JOIN clients c ON c.id = r.client_id
            JOIN meetings m ON m.id = c.meeting_id WHERE m.meeting = ?
            """)
        s.bind(1, meeting)
        defer { s.reset() }
        return try s.step() ? s.int(0) : 0
    }

    /// The number of reports a client has (from the chunk rows, no decoding).
    func reportCount(client: Int64) throws -> Int {
        let s = try db.cached("SELECT coalesce(sum(count), 0) FROM report_chunks WHERE client_id = ?")
        s.bind(1, client)
        defer { s.reset() }
        return try s.step() ? s.int(0) : 0
    }
}

/// Decodes one client's report chunks on demand (see `reportChunks`).
final class ReportChunkCursor {
    private let select: Statement
    private var codec: ChunkCodec
    private let meeting: String
    private let uid: String
    private let onDamage: ((StoreDamage) -> Void)?

    init(select: Statement, codec: ChunkCodec, meeting: String, uid: String, onDamage: ((StoreDamage) -> Void)?) {
        self.select = select
        self.codec = codec
        self.meeting = meeting
        self.uid = uid
        self.onDamage = onDamage
    }

    /// The next chunk's reports, nil after the last. A damaged chunk throws
    /// `StoreError.damaged`, or is handed to `onDamage` and skipped.
    func next() throws -> SeriesBlock? {
        if case .decoded(let block)? = try step(recent: nil) { return block }
        return nil
    }

    /// Appends the next chunk's reports to `columns`; false after the last.
    /// A chunk the codec's `recent` holds is taken from there, not decoded.
    func next(appendingTo columns: inout ReportColumns) throws -> Bool {
        switch try step(recent: codec.recent) {
        case .decoded(let block)?: columns.append(block)
        case .recent(let held)?: columns.append(contentsOf: held)
        case nil: return false
        }
        return true
    }

    private enum Step {
        case decoded(SeriesBlock)
        case recent(ReportColumns)
    }

    private func step(recent: RecentChunks?) throws -> Step? {
        while try select.step() {
            let id = select.int64(0)
            if let recent, let held = select.withBlob(1, { recent.takeReports($0) }) { return .recent(held) }
            let block: SeriesBlock
            do {
                block = try select.withBlob(1) { try codec.decode($0) }
                guard block.columns.count == ReportColumn.allCases.count else { throw StoreError.inconsistent("wrong column count") }
            } catch {
                let reason = (error as? StoreError).map { if case .inconsistent(let what) = $0 { what } else { "\($0)" } } ?? "\(error)"
                let damage = StoreDamage(meeting: meeting, uid: uid, place: .chunk(.reports, id: id), reason: reason)
                guard let onDamage else {
                    select.reset()
                    throw StoreError.damaged(damage)
                }
                onDamage(damage)
                continue
            }
            return .decoded(block)
        }
        select.reset()
        return nil
    }
}

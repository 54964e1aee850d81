import MQAStore

/// One client's quality reports in exact decimal form, the unit of chunk
/// encoding and of merging.
struct ReportSeries {
    var ts: [Int64] = []
    /// loss, rtt, jitter, bitrate, mos: the chunk's column order.
    var columns: [[DecimalNumber]] = [[], [], [], [], []]

    var count: Int { ts.count }

    mutating func append(ts t: Int64, _ values: (DecimalNumber, DecimalNumber, DecimalNumber, DecimalNumber, DecimalNumber)) {
        ts.append(t)
        columns[0].append(values.0)
        columns[1].append(values.1)
        columns[2].append(values.2)
        columns[3].append(values.3)
        columns[4].append(values.4)
    }

    mutating func append(_ other: ReportSeries, at i: Int) {
        ts.append(other.ts[i])
        for c in 0..<5 { columns[c].append(other.columns[c][i]) }
    }

    /// Two reports are duplicates when every value is equal as a number;
    /// `mos` 0 equals `null` (both mean "not available").
    func sameValues(_ i: Int, _ other: ReportSeries, _ j: Int) -> Bool {
        for c in 0..<5 {
            var a = columns[c][i].doubleValue
            var b = other.columns[c][j].doubleValue
            if c == 4 {
                if a == 0 { a = nil }
                if b == 0 { b = nil }
            }
            if a != b { return false }
        }
        return true
    }
}

extension EventStore {
    /// Reports per chunk. Large enough that zstd finds the series' patterns,
    /// small enough that one meeting's chunks decode in microseconds.
    static let chunkCapacity = 2048

    /// Stores `series` (any order, may repeat stored reports) for a client,
    /// keeping the invariant that a client's chunks are sorted, disjoint and
    /// free of duplicates. Returns the number of duplicates dropped.
    func storeReports(_ newSeries: ReportSeries, client: Int64) throws -> Int {
        guard newSeries.count > 0 else { return 0 }
        // Stable sort by ts: equal timestamps keep input order.
        let order = newSeries.ts.indices.sorted { (newSeries.ts[$0], $0) < (newSeries.ts[$1], $1) }
        var sorted = ReportSeries()
        for i in order { sorted.append(newSeries, at: i) }
        let first = sorted.ts.first!
        let last = sorted.ts.last!

        // Stored chunks that overlap, plus a trailing chunk that is not full
        // yet and ends before us: merging it keeps chunks full when a log
        // arrives in pieces.
        let select = try db.cached(
            """
            SELECT id, data, first_ts, last_ts, count FROM report_chunks
            WHERE client_id = ?1 AND first_ts <= ?3 AND (last_ts >= ?2
              OR id = (SELECT id FROM report_chunks WHERE client_id = ?1 AND last_ts < ?2
                       ORDER BY last_ts DESC LIMIT 1) AND count < ?4)
            ORDER BY first_ts, id
            """)
        select.bind(1, client)
        select.bind(2, first)
        select.bind(3, last)
        select.bind(4, EventStore.chunkCapacity)
        var stored = ReportSeries()
        var replaced: [Int64] = []
        while try select.step() {
            replaced.append(select.int64(0))
            let block = try select.withBlob(1) { try codec.decode($0) }
            guard block.columns.count == 5, block.ts.count == select.int(4) else {
                throw StoreError.inconsistent("report chunk \(select.int64(0)) does not match its row")
            }
            for i in block.ts.indices {
                stored.ts.append(block.ts[i])
                for c in 0..<5 { stored.columns[c].append(block.columns[c][i]) }
            }
        }

        // Merge: stored reports first at equal ts (they were logged earlier),
        // then new ones unless a report with equal values exists at that ts.
        var merged = ReportSeries()
        var duplicates = 0
        var i = 0
        var j = 0
        var groupStart = 0  // first index in `merged` with the current ts
        while i < stored.count || j < sorted.count {
            let takeStored = j >= sorted.count || (i < stored.count && stored.ts[i] <= sorted.ts[j])
            if takeStored {
                if merged.count == 0 || merged.ts[merged.count - 1] != stored.ts[i] { groupStart = merged.count }
                merged.append(stored, at: i)
                i += 1
                continue
            }
            let t = sorted.ts[j]
            if merged.count == 0 || merged.ts[merged.count - 1] != t { groupStart = merged.count }
            var isDuplicate = false
            var k = groupStart
            while k < merged.count {
                if merged.sameValues(k, sorted, j) { isDuplicate = true; break }
                k += 1
            }
            if isDuplicate {
                duplicates += 1
            } else {
                merged.append(sorted, at: j)
            }
            j += 1
        }

        if !replaced.isEmpty {
            let delete = try db.cached("DELETE FROM report_chunks WHERE id = ?")
            for id in replaced {
                delete.reset()
                delete.bind(1, id)
                try delete.run()
            }
        }
        var start = 0
        while start < merged.count {
            let end = min(start + EventStore.chunkCapacity, merged.count)
            try insertChunk(merged, start..<end, client: client)
            start = end
        }
        return duplicates
    }

    private func insertChunk(_ s: ReportSeries, _ range: Range<Int>, client: Int64) throws {
        let block = SeriesBlock(ts: Array(s.ts[range]), columns: s.columns.map { Array($0[range]) })
        let blob = try codec.encode(block)
        let insert = try db.cached(
            """
            INSERT INTO report_chunks (client_id, first_ts, last_ts, count,
              loss_min, loss_max, loss_sum, rtt_min, rtt_max, rtt_sum,
              jitter_min, jitter_max, jitter_sum, bitrate_min, bitrate_max, bitrate_sum,
              mos_count, mos_min, mos_max, mos_sum, data)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insert.bind(1, client)
        insert.bind(2, block.ts.first!)
        insert.bind(3, block.ts.last!)
        insert.bind(4, block.ts.count)
        var index: Int32 = 5
        for c in 0..<4 {
            var lo = Double.infinity
            var hi = -Double.infinity
            var sum = 0.0
            for v in block.columns[c] {
                let d = v.doubleValue ?? 0
                lo = min(lo, d)
                hi = max(hi, d)
                sum += d
            }
            insert.bind(index, lo)
            insert.bind(index + 1, hi)
            insert.bind(index + 2, sum)
            index += 3
        }
        var mosCount = 0
        var lo = Double.infinity
        var hi = -Double.infinity
        var sum = 0.0
        for v in block.columns[4] {
            guard let d = v.doubleValue, d >= 1 && d <= 5 else { continue }
            mosCount += 1
            lo = min(lo, d)
            hi = max(hi, d)
            sum += d
        }
        insert.bind(17, mosCount)
        if mosCount > 0 {
            insert.bind(18, lo)
            insert.bind(19, hi)
            insert.bind(20, sum)
        }
        insert.bind(21, blob: blob)
        try insert.run()
    }

    /// A client's stored reports in time order, decoded from its chunks.
    func reportSeries(client: Int64, meeting: String, uid: String) throws -> ReportSeries {
        let select = try db.cached("SELECT id, data FROM report_chunks WHERE client_id = ? ORDER BY first_ts, id")
        select.bind(1, client)
        var out = ReportSeries()
        while try select.step() {
            let id = select.int64(0)
            let block: SeriesBlock
            do {
                block = try select.withBlob(1) { try codec.decode($0) }
            } catch {
                throw StoreError.damagedChunk(meeting: meeting, uid: uid, chunk: id, reason: "\(error)")
            }
            guard block.columns.count == 5 else {
                throw StoreError.damagedChunk(meeting: meeting, uid: uid, chunk: id, reason: "wrong column count")
            }
            out.ts.append(contentsOf: block.ts)
            for c in 0..<5 { out.columns[c].append(contentsOf: block.columns[c]) }
        }
        return out
    }
}

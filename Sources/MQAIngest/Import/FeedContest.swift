/// Which connection's quality report speaks for the participant at each
/// moment (Docs/import.md, "Which connections count"): a report of
/// connection `k` over `(from, ts]` is outdone when another connection
/// that is up at the middle `t` of that interval has a report whose
/// interval holds `t` and moved more media bytes per ms (ties: the
/// connection opened first).
///
/// The middle, not the end: a browser samples its connections one after
/// the other, a millisecond or so apart. Judged at its end, each report met
/// the other connection's *next* interval, so two reports of one second
/// could both win (two reports 1 ms apart) or both lose (a second without
/// one). At the middle, two such reports meet each other, and one wins.
///
/// Done as one sweep over time with a max tree over the connections, so a
/// dump of many overlapping connections (a mesh call) costs
/// O(reports · log connections), not a search per pair.
struct FeedContest {
    struct Report {
        var ts: Int64
        var from: Int64?
        var rate: Double
    }

    /// For each connection, for each of its reports, whether it is outdone.
    static func outdone(_ feeds: [[Report]], spans: [(start: Int64, terminal: Int64)]) -> [[Bool]] {
        let n = feeds.count
        var result = feeds.map { [Bool](repeating: false, count: $0.count) }
        guard n > 1 else { return result }
        // 32-bit indices: a mesh call's dump has hundreds of thousands of reports.
        struct Interval { var lo: Int64; var hi: Int64; var conn: Int32; var idx: Int32 }
        var intervals: [Interval] = []
        for (j, feed) in feeds.enumerated() {
            for (i, q) in feed.enumerated() {
                // Covering t means lo < t <= hi, inside the connection's span.
                let lo = max(q.from ?? (q.ts - 1), spans[j].start - 1)
                let hi = min(q.ts, spans[j].terminal)
                if lo < hi { intervals.append(Interval(lo: lo, hi: hi, conn: Int32(j), idx: Int32(i))) }
            }
        }
        let byLo = (0..<Int32(intervals.count)).sorted { intervals[Int($0)].lo < intervals[Int($1)].lo }
        let byHi = (0..<Int32(intervals.count)).sorted { intervals[Int($0)].hi < intervals[Int($1)].hi }
        var queries: [(t: Int64, conn: Int32, idx: Int32)] = []
        queries.reserveCapacity(feeds.reduce(0) { $0 + $1.count })
        for (k, feed) in feeds.enumerated() {
            for (i, q) in feed.enumerated() {
                // The middle of (from, ts], rounded up: inside it (a first
                // report, without an interval, is judged at its time).
                let from = q.from ?? (q.ts - 1)
                queries.append((from + (q.ts - from + 1) / 2, Int32(k), Int32(i)))
            }
        }
        queries.sort { $0.t < $1.t }

        var tree = MaxTree(count: n)
        var holding = [Int32](repeating: -1, count: n)  // interval index each leaf holds
        var a = 0, d = 0
        for query in queries {
            while a < byLo.count, intervals[Int(byLo[a])].lo < query.t {
                let iv = intervals[Int(byLo[a])]
                tree.set(Int(iv.conn), feeds[Int(iv.conn)][Int(iv.idx)].rate)
                holding[Int(iv.conn)] = byLo[a]
                a += 1
            }
            while d < byHi.count, intervals[Int(byHi[d])].hi < query.t {
                let iv = intervals[Int(byHi[d])]
                if holding[Int(iv.conn)] == byHi[d] {
                    tree.set(Int(iv.conn), nil)
                    holding[Int(iv.conn)] = -1
                }
                d += 1
            }
            let conn = Int(query.conn), idx = Int(query.idx)
            let rate = feeds[conn][idx].rate
            if let best = tree.best(excluding: conn) {
                result[conn][idx] = best.rate > rate || (best.rate == rate && best.conn < conn)
            }
        }
        return result
    }

    /// The best (highest rate, then lowest connection) of the leaves set.
    struct MaxTree {
        private var size = 1
        private var rate: [Double]
        private var conn: [Int]

        init(count: Int) {
            while size < count { size *= 2 }
            rate = [Double](repeating: -.infinity, count: 2 * size)
            conn = [Int](repeating: Int.max, count: 2 * size)
        }

        private func better(_ a: Int, _ b: Int) -> Int {
            rate[a] > rate[b] || (rate[a] == rate[b] && conn[a] < conn[b]) ? a : b
        }

        mutating func set(_ j: Int, _ value: Double?) {
            var i = j + size
            rate[i] = value ?? -.infinity
            conn[i] = value == nil ? Int.max : j
            i /= 2
            while i >= 1 {
                let w = better(2 * i, 2 * i + 1)
                rate[i] = rate[w]
                conn[i] = conn[w]
                i /= 2
            }
        }

        /// The best over `[lo, hi)`, as a node index (or nil when empty).
        private func query(_ lo: Int, _ hi: Int) -> Int? {
            var best: Int? = nil
            var l = lo + size, r = hi + size
            while l < r {
                if l & 1 == 1 { best = best.map { better($0, l) } ?? l; l += 1 }
                if r & 1 == 1 { r -= 1; best = best.map { better($0, r) } ?? r }
                l /= 2
                r /= 2
            }
            return best
        }

        func best(excluding k: Int) -> (rate: Double, conn: Int)? {
            let left = query(0, k), right = query(k + 1, size)
            guard let node = left.map({ l in right.map { better(l, $0) } ?? l }) ?? right, rate[node] > -.infinity
            else { return nil }
            return (rate[node], conn[node])
        }
    }
}

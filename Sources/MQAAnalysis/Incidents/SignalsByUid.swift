/// A meeting's incident signals grouped by uid in one array: sorted by
/// uid in place, each uid's signals in their first order, found by range.
///
/// What `Dictionary(grouping:by:)` gave, without its copy: a noisy
/// 2,000-viewer hour has 130,000 signals of ~170 bytes, and the grouped
/// copy beside them was a fifth of `report meeting`'s peak.
struct SignalsByUid {
    private(set) var signals: [IncidentSignal]
    /// Each uid's run in `signals`, in uid order.
    private(set) var runs: [(uid: String, range: Range<Int>)] = []
    private var index: [String: Int] = [:]

    init(_ signals: consuming [IncidentSignal]) {
        self.signals = signals
        let n = self.signals.count
        // Sorted positions (4 bytes each), ties by position: the grouping's
        // order within a uid. Then the array is permuted along its cycles.
        var order = [Int32](unsafeUninitializedCapacity: n) { buffer, count in
            for i in 0..<n { buffer[i] = Int32(i) }
            count = n
        }
        self.signals.withUnsafeBufferPointer { s in
            order.sort { a, b in
                let x = s[Int(a)].uid, y = s[Int(b)].uid
                return x != y ? x < y : a < b
            }
        }
        // Cycle by cycle, moving each element once; a placed position is
        // marked by -1.
        for start in 0..<n where order[start] >= 0 {
            guard Int(order[start]) != start else { order[start] = -1; continue }
            let held = self.signals[start]
            var j = start
            while true {
                let k = Int(order[j])
                order[j] = -1
                if k == start { self.signals[j] = held; break }
                self.signals[j] = self.signals[k]
                j = k
            }
        }
        var lo = 0
        while lo < n {
            let uid = self.signals[lo].uid
            var hi = lo + 1
            while hi < n && self.signals[hi].uid == uid { hi += 1 }
            index[uid] = runs.count
            runs.append((uid, lo..<hi))
            lo = hi
        }
    }

    /// `uid`'s signals, in their first order; empty for a uid without.
    subscript(uid: String) -> ArraySlice<IncidentSignal> {
        guard let k = index[uid] else { return [] }
        return signals[runs[k].range]
    }
}

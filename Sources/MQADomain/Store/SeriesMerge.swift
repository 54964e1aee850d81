import MQAStore

/// A client's time series as the store chunks it: reports, or other events.
/// One merge serves both, so both follow the same rules.
protocol MergeableSeries {
    init()
    var count: Int { get }
    func ts(_ i: Int) -> Int64
    mutating func append(_ other: Self, at i: Int)
    /// Whether item `i` repeats item `j` of `other` (same ts assumed).
    func same(_ i: Int, _ other: Self, _ j: Int) -> Bool
}

extension MergeableSeries {
    /// The items in time order; equal times keep their order.
    func sortedByTime() -> Self {
        var isSorted = true
        var i = 1
        while i < count {
            if ts(i) < ts(i - 1) { isSorted = false; break }
            i += 1
        }
        if isSorted { return self }
        let order = (0..<count).sorted { (ts($0), $0) < (ts($1), $1) }
        var out = Self()
        for i in order { out.append(self, at: i) }
        return out
    }

    /// Whether no two neighbours share a time (in a sorted series: no two
    /// items do, so none can repeat another).
    func timesAreDistinct() -> Bool {
        var i = 1
        while i < count {
            if ts(i) == ts(i - 1) { return false }
            i += 1
        }
        return true
    }

    /// Merges stored items (sorted, free of repeats) with new ones (sorted).
    /// At equal times stored items come first, as they were logged earlier;
    /// a new item that repeats one already at its time is dropped and
    /// counted.
    static func merge(stored: Self, new: Self) -> (merged: Self, duplicates: Int) {
        // Nothing stored and no two new items at one time (so no repeats):
        // the new items are the result as they are, without copying them
        // one by one (2.4 % of the writer thread's instructions).
        if stored.count == 0 && new.timesAreDistinct() { return (new, 0) }
        var merged = Self()
        var duplicates = 0
        var i = 0
        var j = 0
        var groupStart = 0  // first index in `merged` holding the current time
        while i < stored.count || j < new.count {
            let takeStored = j >= new.count || (i < stored.count && stored.ts(i) <= new.ts(j))
            let t = takeStored ? stored.ts(i) : new.ts(j)
            if merged.count == 0 || merged.ts(merged.count - 1) != t { groupStart = merged.count }
            if takeStored {
                merged.append(stored, at: i)
                i += 1
                continue
            }
            var repeated = false
            var k = groupStart
            while k < merged.count && !repeated {
                repeated = merged.same(k, new, j)
                k += 1
            }
            if repeated { duplicates += 1 } else { merged.append(new, at: j) }
            j += 1
        }
        return (merged, duplicates)
    }
}

/// A client's non-report events in the store's form: kind and canonical
/// payload JSON bytes.
struct EventSeries: MergeableSeries {
    var block = EventBlock()

    var count: Int { block.ts.count }
    func ts(_ i: Int) -> Int64 { block.ts[i] }

    mutating func append(ts: Int64, kind: EventKind, payload: [UInt8]) {
        block.ts.append(ts)
        block.kinds.append(kind.rawValue)
        block.payloads.append(payload)
    }

    mutating func append(_ other: EventSeries, at i: Int) {
        block.ts.append(other.block.ts[i])
        block.kinds.append(other.block.kinds[i])
        block.payloads.append(other.block.payloads[i])
    }

    /// The spec's duplicate: same event and equal payload fields. The
    /// canonical JSON makes "equal fields" equal bytes.
    func same(_ i: Int, _ other: EventSeries, _ j: Int) -> Bool {
        block.kinds[i] == other.block.kinds[j] && block.payloads[i] == other.block.payloads[j]
    }
}

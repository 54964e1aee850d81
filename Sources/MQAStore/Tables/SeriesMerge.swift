import MQABase
import MQAModel
import MQAAnalysis

/// A client's time series as the store chunks it: reports, or other events.
/// One merge serves both, so both follow the same rules.
protocol MergeableSeries {
    init()
    var count: Int { get }
    func ts(_ i: Int) -> Int64
    mutating func append(_ other: Self, at i: Int)
    /// Appends items `range` of `other`, in order.
    mutating func append(_ other: Self, range: Range<Int>)
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

    /// Merges stored items (sorted, free of repeats) with new ones (sorted).
    /// At equal times stored items come first, as they were logged earlier;
    /// a new item that repeats one already at its time is dropped and
    /// counted.
    static func merge(stored: Self, new: Self) -> (merged: Self, duplicates: Int) {
        if stored.count == 0 { return dropRepeats(new) }
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

    /// `merge` with nothing stored: the new items less those that repeat an
    /// earlier one at their time, copied a run at a time between the
    /// dropped ones (item by item, the merge was 6 % of the writer thread),
    /// and not copied at all when none repeats.
    static func dropRepeats(_ new: Self) -> (merged: Self, duplicates: Int) {
        var merged = Self()
        var duplicates = 0
        var runStart = 0
        var kept: [Int] = []  // the items kept so far at the current time
        for j in 0..<new.count {
            if j == 0 || new.ts(j) != new.ts(j - 1) {
                kept.removeAll(keepingCapacity: true)
            } else if kept.contains(where: { new.same($0, new, j) }) {
                merged.append(new, range: runStart..<j)
                runStart = j + 1
                duplicates += 1
                continue
            }
            kept.append(j)
        }
        if duplicates == 0 { return (new, 0) }
        merged.append(new, range: runStart..<new.count)
        return (merged, duplicates)
    }
}

/// A client's non-report events in the store's form: kind and canonical
/// payload JSON bytes.
package struct EventSeries: MergeableSeries {
    var block = EventBlock()

    package init() {}

    init(block: EventBlock) {
        self.block = block
    }

    package var count: Int { block.ts.count }
    func ts(_ i: Int) -> Int64 { block.ts[i] }

    package mutating func append(ts: Int64, kind: EventKind, payload: ArraySlice<UInt8>) {
        block.append(ts: ts, kind: kind.rawValue, payload: payload)
    }

    mutating func append(_ other: EventSeries, range: Range<Int>) {
        block.append(other.block, range: range)
    }

    mutating func append(_ other: EventSeries, at i: Int) {
        block.append(other.block, at: i)
    }

    /// The spec's duplicate: same event and equal payload fields. The
    /// canonical JSON makes "equal fields" equal bytes.
    func same(_ i: Int, _ other: EventSeries, _ j: Int) -> Bool {
        block.same(i, other.block, j)
    }
}

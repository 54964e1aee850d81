import MQABase
import MQAModel

/// A client's time series as the store chunks it: reports, or other events.
/// One merge serves both, so both follow the same rules.
protocol MergeableSeries {
    init()
    var count: Int { get }
    func ts(_ i: Int) -> Int64
    mutating func append(_ other: Self, at i: Int)
    /// Appends items `range` of `other`, in order.
    mutating func append(_ other: Self, range: Range<Int>)
    /// Makes room for the items of `a` and `b` together, so that the runs
    /// appended next copy once instead of growing the arrays run by run
    /// (regrowth was 1 % of an ingest's instructions).
    mutating func reserve(toHold a: Self, _ b: Self)
    /// Whether item `i` repeats item `j` of `other` (same ts assumed).
    func same(_ i: Int, _ other: Self, _ j: Int) -> Bool
    /// Feeds what `same` compares of item `i`: items that are the same hash
    /// the same.
    func hashItem(_ i: Int, into hasher: inout Hasher)
    /// How the sorted items are cut into chunks (`SeriesChunking.swift`).
    func chunkRanges() -> [Range<Int>]
    /// About the memory the items take, to bound what is held of them.
    var heldBytes: Int { get }
}

/// The items of one time seen so far, to find a repeat among them: compared
/// one by one while they are few (most items are alone at their time), then
/// looked up by hash. A log whose clock is stuck puts every line at one
/// time, and one by one is quadratic there: 50,000 distinct reports at one
/// time took 12 s to ingest.
struct RepeatIndex {
    /// Up to this many items of a time are compared one by one.
    static let linearLimit = 32
    private var buckets: [Int: [Int]] = [:]
    /// The group indexed: items `from..<next` of the series.
    private var from = -1
    private var next = -1

    /// Whether item `j` of `item` repeats one of the items `group` of
    /// `series`, all at `j`'s time. Calls for one group come with the same
    /// lower bound and a growing upper one; a new lower bound starts over.
    mutating func repeats<S: MergeableSeries>(_ j: Int, of item: S, among series: S, _ group: Range<Int>) -> Bool {
        if group.count <= RepeatIndex.linearLimit {
            for k in group where series.same(k, item, j) { return true }
            return false
        }
        if group.lowerBound != from {
            buckets.removeAll(keepingCapacity: true)
            (from, next) = (group.lowerBound, group.lowerBound)
        }
        while next < group.upperBound {
            buckets[RepeatIndex.hash(series, next), default: []].append(next)
            next += 1
        }
        guard let candidates = buckets[RepeatIndex.hash(item, j)] else { return false }
        return candidates.contains { series.same($0, item, j) }
    }

    private static func hash<S: MergeableSeries>(_ series: S, _ i: Int) -> Int {
        var hasher = Hasher()
        series.hashItem(i, into: &hasher)
        return hasher.finalize()
    }
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
        let order = timeOrder()
        // Copied a run at a time: an async logger swaps a few neighbours,
        // so the order is mostly runs of consecutive items, and item by
        // item the copy cost more than the sort.
        var out = Self()
        out.reserve(toHold: self, Self())
        var runStart = order[0]
        var runEnd = runStart + 1
        for i in order.dropFirst() {
            if i == runEnd {
                runEnd += 1
            } else {
                out.append(self, range: runStart..<runEnd)
                (runStart, runEnd) = (i, i + 1)
            }
        }
        out.append(self, range: runStart..<runEnd)
        return out
    }

    /// The item indices in time order, equal times in index order. An
    /// insertion sort: an async logger's disorder is a few swapped
    /// neighbours, which it orders in one pass (the general sort was 60 %
    /// of `sortedByTime`). Past a budget of moves (a log that is not
    /// nearly sorted) it hands over to the general sort, so the cost stays
    /// O(n log n).
    func timeOrder() -> [Int] {
        var order = Array(0..<count)
        guard count > 1 else { return order }
        let budget = 8 * count + 64
        var moves = 0
        let done = order.withUnsafeMutableBufferPointer { order -> Bool in
            for k in 1..<order.count {
                let item = order[k]
                let t = ts(item)
                var j = k
                // Strictly later only: an equal time stays after, in index order.
                while j > 0 && ts(order[j - 1]) > t {
                    order[j] = order[j - 1]
                    j -= 1
                }
                order[j] = item
                moves += k - j
                if moves > budget { return false }
            }
            return true
        }
        return done ? order : (0..<count).sorted { (ts($0), $0) < (ts($1), $1) }
    }

    /// Merges stored items (sorted, free of repeats) with new ones (sorted).
    /// At equal times stored items come first, as they were logged earlier;
    /// a new item that repeats one already at its time is dropped and
    /// counted.
    ///
    /// Items are copied a run at a time, and a piece that starts after the
    /// stored items end (a log's next file, the usual case) is appended
    /// whole: item by item, joining a log's pieces was a quarter of the
    /// writer thread's instructions.
    static func merge(stored: Self, new: Self) -> (merged: Self, duplicates: Int) {
        if stored.count == 0 { return dropRepeats(new) }
        if new.count == 0 { return (stored, 0) }
        if stored.ts(stored.count - 1) < new.ts(0) {
            // No time in common: only the new piece's own repeats go.
            let (kept, duplicates) = dropRepeats(new)
            var merged = stored
            merged.reserve(toHold: stored, kept)
            merged.append(kept, range: 0..<kept.count)
            return (merged, duplicates)
        }
        var merged = Self()
        merged.reserve(toHold: stored, new)
        var index = RepeatIndex()
        var duplicates = 0
        var i = 0
        var j = 0
        // Items taken and not yet copied: `runStart..<runEnd` of the new
        // items when `runOfNew`, else of the stored ones.
        var runOfNew = false
        var runStart = 0
        var runEnd = 0
        var count = 0  // items taken, the pending run included
        var lastTs = Int64.min  // the time of the last item taken
        var groupStart = 0  // first index in `merged` holding `lastTs`
        func flush() {
            guard runEnd > runStart else { return }
            merged.append(runOfNew ? new : stored, range: runStart..<runEnd)
            runStart = runEnd
        }
        func take(_ k: Int, ofNew: Bool, ts t: Int64) {
            if count == 0 || lastTs != t { groupStart = count }
            if ofNew != runOfNew || k != runEnd {
                flush()
                (runOfNew, runStart, runEnd) = (ofNew, k, k)
            }
            runEnd += 1
            count += 1
            lastTs = t
        }
        while i < stored.count || j < new.count {
            if j >= new.count || (i < stored.count && stored.ts(i) <= new.ts(j)) {
                take(i, ofNew: false, ts: stored.ts(i))
                i += 1
                continue
            }
            let t = new.ts(j)
            if count > 0 && lastTs == t {
                // Items at its time are taken: compare with them, copied.
                flush()
                if index.repeats(j, of: new, among: merged, groupStart..<merged.count) {
                    duplicates += 1
                    j += 1
                    continue
                }
            }
            take(j, ofNew: true, ts: t)
            j += 1
        }
        flush()
        return (merged, duplicates)
    }

    /// `merge` with nothing stored: the new items less those that repeat an
    /// earlier one at their time, copied a run at a time between the
    /// dropped ones (item by item, the merge was 6 % of the writer thread),
    /// and not copied at all when none repeats.
    ///
    /// An item is compared with every earlier item at its time, dropped or
    /// not: `same` is an equivalence, so an item that repeats a dropped one
    /// repeats the kept one that one repeated, and the result is the rule's.
    /// Keeping a list of the kept items cost more than the comparisons (an
    /// append and a uniqueness check per item, where most items are alone
    /// at their time).
    static func dropRepeats(_ new: Self) -> (merged: Self, duplicates: Int) {
        var merged = Self()
        var duplicates = 0
        var runStart = 0
        var index = RepeatIndex()
        var groupStart = 0  // the first item at the current time
        for j in 0..<new.count {
            if j > 0 && new.ts(j) != new.ts(j - 1) { groupStart = j }
            guard j > groupStart, index.repeats(j, of: new, among: new, groupStart..<j) else { continue }
            if duplicates == 0 { merged.reserve(toHold: new, Self()) }
            merged.append(new, range: runStart..<j)
            runStart = j + 1
            duplicates += 1
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

    func hashItem(_ i: Int, into hasher: inout Hasher) {
        hasher.combine(block.kinds[i])
        block.payloadBytes.withUnsafeBytes { hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: $0[block.payloadRange(i)])) }
    }

    mutating func reserve(toHold a: EventSeries, _ b: EventSeries) {
        reserve(count: a.count + b.count, payloadBytes: a.payloadByteCount + b.payloadByteCount)
    }

    mutating func reserve(count: Int, payloadBytes: Int) {
        block.reserveCapacity(count, payloadBytes: payloadBytes)
    }

    /// The bytes of all the payloads together.
    var payloadByteCount: Int { block.payloadBytes.count }

    mutating func append(_ other: EventSeries, at i: Int) {
        block.append(other.block, at: i)
    }

    /// The spec's duplicate: same event and equal payload fields. The
    /// canonical JSON makes "equal fields" equal bytes.
    func same(_ i: Int, _ other: EventSeries, _ j: Int) -> Bool {
        block.same(i, other.block, j)
    }
}

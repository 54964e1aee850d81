import MQABase

// Whether each stall of a track is shared, for all of them in one sweep.
//
// The rule (`isSharedByScan`) marks who stalled with the stall, then looks
// at every watcher: for a 20,000-viewer webinar's 60,000 stalls that was
// 60,000 × 20,000 steps, done twice, 57 % of its meeting report.
//
// Turned around: a stall x = [a, b] of subscriber `me` is *not* shared
// when some other watcher renders the track at `a` and its subscriber had
// no stall overlapping [a - tol, b + tol], i.e. when the window fits in a
// gap of that subscriber's stalls. Sorted by start, a subscriber's stalls
// leave gaps i = 0...n: everything before i ends by L(i) (the largest end
// of stalls 0..<i; -∞ for i = 0) and stall i starts at R(i) (+∞ for i = n).
// The window fits gap i when L(i) <= a - tol and R(i) >= b + tol. L and R
// only grow with i, so at a given `a` the best gap is the last with
// L(i) + tol <= a: the subscriber "offers" R(i) over [L(i) + tol,
// L(i + 1) + tol), while one of its watchers renders. The stalls are
// visited by start, and a heap holds the offers in force: x is not shared
// when the largest offer of another subscriber reaches b + tol. It is
// shared when, besides, someone other than `me` renders at `a`.
extension SharedStalls {
    /// By position in `t.entries` (sorted by start): whether each stall is
    /// shared, as `isSharedByScan` decides it.
    static func sharedFlags(_ t: Track, tol: Int64) -> [Bool] {
        let entries = t.entries
        guard !entries.isEmpty else { return [] }
        let places = t.subscribers.count
        // Each place's stalls, in start order: positions in `entries`.
        var offsets = [Int](repeating: 0, count: places + 1)
        for e in entries { offsets[Int(e.subscriber) + 1] += 1 }
        for p in 0..<places { offsets[p + 1] += offsets[p] }
        var byPlace = [Int32](repeating: 0, count: entries.count)
        var fill = offsets
        for (k, e) in entries.enumerated() {
            byPlace[fill[Int(e.subscriber)]] = Int32(k)
            fill[Int(e.subscriber)] += 1
        }

        let segments = renderSegments(t)
        var offers: [Offer] = []
        offers.reserveCapacity(segments.count + entries.count)
        for g in segments {
            let mine = byPlace[offsets[Int(g.place)]..<offsets[Int(g.place) + 1]]
            var before = Int64.min  // L(i)
            var from = Int64.min    // L(i) + tol
            for i in 0...mine.count {
                if i > 0 {
                    before = max(before, entries[Int(mine[mine.startIndex + i - 1])].end)
                    from = saturatingSum(before, tol)
                }
                let until = i < mine.count ? saturatingSum(max(before, entries[Int(mine[mine.startIndex + i])].end), tol) : .max
                let lo = max(from, g.lo), hi = min(until, g.hi)
                let reach = i < mine.count ? entries[Int(mine[mine.startIndex + i])].start : .max
                if lo < hi { offers.append(Offer(lo: lo, hi: hi, reach: reach, place: g.place)) }
                if until >= g.hi { break }
            }
        }
        offers.sort { $0.lo < $1.lo }

        // Who renders at `a`: segments begun minus segments ended, less
        // the stalled subscriber's own.
        let starts = segments.map(\.lo).sorted(), ends = segments.map(\.hi).sorted()
        // Each place's segments, together.
        var segmentsFrom = [Int](repeating: 0, count: places + 1)
        for g in segments { segmentsFrom[Int(g.place) + 1] += 1 }
        for p in 0..<places { segmentsFrom[p + 1] += segmentsFrom[p] }
        let bySegmentPlace = segments.sorted { $0.place < $1.place }

        var flags = [Bool](repeating: false, count: entries.count)
        var heap = OfferHeap()
        var next = 0, begun = 0, ended = 0
        var aside: [Offer] = []
        for (k, x) in entries.enumerated() {
            let a = x.start, me = x.subscriber
            while next < offers.count && offers[next].lo <= a {
                heap.push(offers[next])
                next += 1
            }
            while begun < starts.count && starts[begun] <= a { begun += 1 }
            while ended < ends.count && ends[ended] <= a { ended += 1 }
            let own = bySegmentPlace[segmentsFrom[Int(me)]..<segmentsFrom[Int(me) + 1]].count { $0.lo <= a && a < $0.hi }
            guard begun - ended - own > 0 else { continue }
            // The largest offer in force of a subscriber other than `me`.
            // Offers are visited by start, so one that ended is done for good.
            var uncovered = false
            while let top = heap.top {
                if top.hi <= a {
                    heap.pop()
                } else if top.place == me {
                    aside.append(heap.pop())
                } else {
                    uncovered = top.reach >= saturatingSum(x.end, tol)
                    break
                }
            }
            for o in aside { heap.push(o) }
            aside.removeAll(keepingCapacity: true)
            flags[k] = !uncovered
        }
        return flags
    }

    /// When a watcher renders: from its first frame to its end, less the
    /// instants its feed was silent (`renders`: silent at `t` when a
    /// silence has start < t < end), as half-open ranges of ms.
    static func renderSegments(_ t: Track) -> [(lo: Int64, hi: Int64, place: Int32)] {
        var out: [(lo: Int64, hi: Int64, place: Int32)] = []
        out.reserveCapacity(t.watchers.count)
        for w in t.watchers {
            var lo = w.firstFrameTs
            let hi = w.endTs
            if w.silences >= 0 {
                let cuts = t.silenceLists[Int(w.silences)].map { (from: saturatingSum($0.start, 1), to: $0.end) }
                    .filter { $0.from < $0.to }.sorted { $0.from < $1.from }
                for c in cuts where lo < hi {
                    if c.from > lo { out.append((lo, min(c.from, hi), w.subscriber)) }
                    lo = max(lo, c.to)
                }
            }
            if lo < hi { out.append((lo, hi, w.subscriber)) }
        }
        return out
    }

    /// `a + b`, held at the ends of `Int64` instead of trapping.
    static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// A subscriber's best gap while it is in force: over `[lo, hi)`, its
    /// watcher renders and a window ending by `reach - tol` fits the gap.
    struct Offer {
        var lo: Int64
        var hi: Int64
        var reach: Int64
        var place: Int32
    }

    /// The offers in force, largest `reach` on top.
    struct OfferHeap {
        private var items: [Offer] = []

        var top: Offer? { items.first }

        mutating func push(_ o: Offer) {
            items.append(o)
            var i = items.count - 1
            while i > 0 {
                let parent = (i - 1) / 2
                guard items[parent].reach < items[i].reach else { break }
                items.swapAt(parent, i)
                i = parent
            }
        }

        @discardableResult
        mutating func pop() -> Offer {
            let first = items[0]
            let last = items.removeLast()
            guard !items.isEmpty else { return first }
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < items.count && items[l].reach > items[m].reach { m = l }
                if r < items.count && items[r].reach > items[m].reach { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
            return first
        }
    }
}

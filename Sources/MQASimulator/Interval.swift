import MQABase
import MQAModel
import MQAAnalysis

/// A half-open time span [start, end) in epoch milliseconds.
struct Interval: Sendable, Equatable {
    var start: Int64
    var end: Int64

    @inline(__always)
    func contains(_ t: Int64) -> Bool { t >= start && t < end }
}

/// One overlap of two sorted, disjoint interval lists.
struct Overlap {
    var span: Interval
    /// Index of the interval of the first / second list it lies in.
    var first: Int
    var second: Int
    /// The overlap ends because the interval of the first list ends
    /// (at or before the second's end).
    var endsWithFirst: Bool
}

/// The overlaps of two sorted lists of disjoint intervals.
func overlaps(_ a: [Interval], _ b: [Interval]) -> [Overlap] {
    var out: [Overlap] = []
    var i = 0, j = 0
    while i < a.count && j < b.count {
        let s = max(a[i].start, b[j].start)
        let e = min(a[i].end, b[j].end)
        if s < e {
            out.append(Overlap(span: Interval(start: s, end: e), first: i, second: j,
                               endsWithFirst: a[i].end <= b[j].end))
        }
        if a[i].end <= b[j].end { i += 1 } else { j += 1 }
    }
    return out
}

/// The intersection of two sorted lists of disjoint intervals.
func intersect(_ a: [Interval], _ b: [Interval]) -> [Interval] {
    overlaps(a, b).map(\.span)
}

/// Index of the interval holding `t`, in a sorted list of disjoint intervals.
func indexOf(_ t: Int64, in list: [Interval]) -> Int? {
    let lo = list.partitionPoint { $0.end > t }
    return lo < list.count && list[lo].contains(t) ? lo : nil
}

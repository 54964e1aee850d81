extension RandomAccessCollection {
    /// The index of the first element for which `isAfter` holds, in a
    /// collection that `isAfter` partitions: false for a prefix, true for
    /// the rest; `endIndex` when it holds for none. A binary search.
    ///
    /// The one search behind every "first report at or after t", "last
    /// hold that began by t" and "interval containing t" of time-sorted
    /// arrays: `partitionPoint { $0.ts >= t }` is the first at or after
    /// `t`, and the element before `partitionPoint { $0.from > t }` the
    /// last one that began by `t`.
    @inlinable
    public func partitionPoint(where isAfter: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var n = count
        while n > 0 {
            let half = n / 2
            let mid = index(low, offsetBy: half)
            if try isAfter(self[mid]) {
                n = half
            } else {
                low = index(after: mid)
                n -= half + 1
            }
        }
        return low
    }
}

extension RandomAccessCollection where Element: Comparable {
    /// Whether the sorted collection holds `element`: a binary search.
    @inlinable
    public func sortedContains(_ element: Element) -> Bool {
        let i = partitionPoint { $0 >= element }
        return i != endIndex && self[i] == element
    }
}

/// Positions (in some array) grouped by a key, in one flat array: what
/// `Dictionary(grouping:by:)` gives as an array per key, without the
/// arrays. A 20,000-viewer meeting's report grouped its incidents, issues
/// and subscriptions by uid and by incident: 110,000 small arrays, 13 MB
/// at the report's peak.
struct PositionGroups<Key: Hashable & Sendable>: Sendable {
    /// Each key's run in `positions`.
    private var runs: [Key: Range<Int32>] = [:]
    /// The positions, grouped by key, each group in position order.
    private var positions: [Int32] = []

    init() {}

    /// Positions `0..<count`, each under the keys that `keys` hands to its
    /// second argument for it (none, one or several); `keys` is called
    /// twice per position, and must give the same keys both times.
    init(count: Int, keys: (_ position: Int, _ add: (Key) -> Void) -> Void) {
        var counts: [Key: Int32] = [:]
        for i in 0..<count { keys(i) { counts[$0, default: 0] += 1 } }
        var at: Int32 = 0
        runs.reserveCapacity(counts.count)
        for (key, n) in counts {
            // Empty until filled: `upperBound` is the next free place.
            runs[key] = at..<at
            at += n
        }
        counts = [:]
        positions = [Int32](repeating: 0, count: Int(at))
        for i in 0..<count {
            keys(i) { key in
                let r = runs[key]!
                positions[Int(r.upperBound)] = Int32(i)
                runs[key] = r.lowerBound..<r.upperBound + 1
            }
        }
    }

    /// The positions under `key`, in order; empty for an unknown key.
    subscript(key: Key) -> ArraySlice<Int32> {
        guard let r = runs[key] else { return [] }
        return positions[Int(r.lowerBound)..<Int(r.upperBound)]
    }
}

import MQAAnalysis

/// Meetings ranked as they come, for `FleetReport`: with `top`, only the
/// worst `top` are kept, so that `report fleet --top 10` over 200,000
/// meetings holds ten entries and the issue totals, not every meeting's
/// header, counts and client mix.
public struct FleetRanking: Sendable {
    public let top: Int?
    /// Kept entries, in no order until `ranked` sorts them.
    private var kept: [FleetEntry] = []
    public private(set) var meetingCount = 0
    public private(set) var issueTotals: [IssueCode: (issues: Int, meetings: Int)] = [:]

    public init(top: Int? = nil) {
        self.top = top
    }

    /// Worse first; ties by meeting id, so the order is stable.
    static func ranksBefore(_ a: FleetEntry, _ b: FleetEntry) -> Bool {
        (a.score, b.header.meeting) > (b.score, a.header.meeting)
    }

    public mutating func add(_ entry: FleetEntry) {
        meetingCount += 1
        for (code, n) in entry.issueCounts where n > 0 {
            let t = issueTotals[code] ?? (0, 0)
            issueTotals[code] = (t.issues + n, t.meetings + 1)
        }
        kept.append(entry)
        // Cut back to `top` once twice as many are held: a sort per `top`
        // entries added.
        if let top, kept.count >= 2 * max(top, 16) {
            kept.sort(by: FleetRanking.ranksBefore)
            kept.removeLast(kept.count - top)
        }
    }

    /// Worst first, cut to `top`.
    public var ranked: [FleetEntry] {
        let sorted = kept.sorted(by: FleetRanking.ranksBefore)
        return top.map { Array(sorted.prefix($0)) } ?? sorted
    }
}

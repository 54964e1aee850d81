import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis

/// `FleetRanking` keeps only the worst `top` as meetings come, and ranks
/// them as sorting every meeting would.
@Suite struct FleetRankingTests {
    static func entries(seed: UInt64, count: Int) -> [FleetEntry] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { i in
            // Few distinct scores, so that many tie and rank by meeting id.
            var counts: [IssueCode: Int] = [:]
            if random.chance(0.3) { counts[IssueCode.allCases[random.below(IssueCode.allCases.count)]] = 1 + random.below(3) }
            return FleetEntry(
                header: MeetingHeader(meeting: "m-\(random.below(1_000_000))-\(i)", title: nil, engine: "sfu", start: nil, end: nil, participants: 2),
                stalledMs: Int64(random.below(6)) * 1000, lowTierMs: Int64(random.below(4)) * 500,
                abnormalDisconnects: random.below(2), issueCounts: counts)
        }
    }

    @Test("the top N of meetings given one by one are the first N of all ranked", arguments: [1, 2, 3] as [UInt64])
    func topIsThePrefixOfTheFullRanking(seed: UInt64) {
        let all = Self.entries(seed: seed, count: 3000)
        let full = FleetReport(entries: all)
        #expect(full.ranked.count == 3000)
        for top in [1, 10, 17, 100, 2999, 3000, 5000] {
            var ranking = FleetRanking(top: top)
            for e in all { ranking.add(e) }
            let report = FleetReport(ranking)
            #expect(report.ranked.map(\.header.meeting) == full.ranked.prefix(top).map(\.header.meeting), "top \(top)")
            #expect(report.meetingCount == 3000)
            #expect(report.issueTotals.mapValues { "\($0.issues)/\($0.meetings)" } == full.issueTotals.mapValues { "\($0.issues)/\($0.meetings)" })
        }
    }
}

import Foundation
import Testing
@testable import MQAReports
import MQATestSupport
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

    /// md and csv are written a row at a time. Past the rows a table holds
    /// (`ReportTable.heldRows`), the ranking's Markdown is the table built
    /// whole, and the csv has a line per meeting; both as `render` gives.
    @Test func aFleetPastTheHeldRowsIsWrittenAsRendered() throws {
        let count = ReportTable.heldRows + 500
        let report = FleetReport(entries: Self.entries(seed: 9, count: count))
        var whole = report.rankingTable(issues: false)
        for (i, e) in report.ranked.enumerated() { whole.add([.int(i + 1), .text(e.header.meeting)] + report.rankingCells(e).dropLast()) }
        let scratch = ScratchFolder()
        for format in [ReportFormat.md, .csv] {
            let path = scratch.file("fleet.\(format.rawValue)")
            let sink = try OutputSink(path: path)
            report.write(format, to: sink)
            try sink.close()
            let written = try String(contentsOfFile: path, encoding: .utf8)
            #expect(written == report.render(format), "\(format)")
            if format == .md { #expect(written.contains(whole.markdown)) }
            else { #expect(written.split(separator: "\n").count == count + 1) }
        }
    }
}

import Foundation
import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQATestSupport

/// The reports behind `mqa tiers` and `mqa check`: log text in them goes
/// through the table's escaping, and each format keeps its row per item.
@Suite struct CommandReportTests {
    static let uid = "a|b\u{1B}[2J\nc,\"d\""

    /// One client whose MOS falls, then recovers: tier changes to list.
    static var falling: MeetingLog {
        let t = Fixtures.t0
        var a = ClientBuilder(uid)
        a.join(t)
        a.reports(from: t + 2000, to: t + 40000, mos: 4.4)
        a.reports(from: t + 42000, to: t + 80000, mos: 2.0)
        a.reports(from: t + 82000, to: t + 120000, mos: 4.4)
        a.leave(t + 121000)
        var b = ClientBuilder("quiet")
        b.join(t)
        b.reports(from: t + 2000, to: t + 40000, mos: 4.4)
        return meeting([a, b], id: "m|<b>")
    }

    @Test func tiersEscapeTheUidInEveryFormat() {
        let analysis = MeetingAnalysis.analyze(CommandReportTests.falling, config: TierConfig())
        let report = TiersReport(analysis, uid: CommandReportTests.uid)
        let changes = analysis.connections.filter { $0.uid == CommandReportTests.uid }.flatMap(\.changes)
        #expect(changes.count >= 3)

        let md = report.render(.md)
        #expect(md.hasPrefix("# Tiers of meeting m\\|\\<b>\n"))
        #expect(md.contains("## a\\|b\\u001b\\[2J\\nc,\"d\", connection 0: "))
        #expect(!md.contains("quiet"), "only the client asked for")
        #expect(!md.unicodeScalars.contains { $0.value == 0x1B })

        let csv = report.render(.csv).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(csv.count == 1 + changes.count)
        #expect(csv.dropFirst().allSatisfy { $0.hasPrefix("\"a|b\\u001b[2J\\nc,\"\"d\"\"\",0,") })

        #expect(report.render(.json).contains("\"uid\": \"a|b\\u001b[2J\\nc,\\\"d\\\"\""))
    }

    /// A meeting over the zone's midnight dates its local clocks, as the
    /// meeting report does; one within a day keeps them bare.
    @Test func tiersDateLocalClocksOverMidnight() {
        func markdown(start t: Int64) -> String {
            var a = ClientBuilder("ann")
            a.join(t)
            a.reports(from: t + 2000, to: t + 40000, mos: 4.4)
            a.reports(from: t + 42000, to: t + 80000, mos: 2.0)
            a.leave(t + 81000)
            var report = TiersReport(MeetingAnalysis.analyze(meeting([a]), config: TierConfig()))
            report.display = TimeDisplay(zone: ClockZone("Europe/London"))
            return report.markdown
        }
        let late = markdown(start: Time.parse("2026-11-29T23:59:00Z")!)
        #expect(late.contains("| 2026-11-29 23:59:42 +00:00 |"), "\(late)")
        let noon = markdown(start: Time.parse("2026-11-29T12:00:00Z")!)
        #expect(noon.contains("| 12:00:42 +00:00 ") && !noon.contains("| 2026-11-29 12:"), "\(noon)")
    }

    @Test func checkListsTheFirstThousandDamagesInMarkdownAndAllInJSON() {
        var result = StoreCheckResult()
        result.integrity = ["ok"]
        result.damage = (0..<(CheckReport.shownDamage + 2)).map {
            StoreDamage(meeting: "m|\u{202E}<x>", uid: "u", place: .chunk(.reports, id: Int64($0)), reason: "crc")
        }
        let report = CheckReport(result, path: "/tmp/<store>")
        let md = report.render(.md)
        #expect(md.hasPrefix("# Store check: /tmp/\\<store>\n"))
        #expect(md.contains("\n| meeting "), "a table of the damage")
        #expect(md.components(separatedBy: "m\\|\\u202e\\<x>").count - 1 == CheckReport.shownDamage)
        #expect(md.hasSuffix("\n… and 2 more (`--format json` lists all)\n"))
        let json = report.render(.json)
        #expect(json.components(separatedBy: "\"reason\": \"crc\"").count - 1 == CheckReport.shownDamage + 2)
    }
}

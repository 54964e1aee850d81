import Foundation
import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQATestSupport

/// A big meeting's HTML page charts the most affected participants only
/// (`chartLimit`) and lists the incidents with the most impact
/// (`incidentListLimit`), keeping every link on the page alive; Markdown
/// and JSON keep everything.
@Suite struct PageLimitsTests {
    let t0 = Fixtures.t0

    /// alice stalls four times, carol twice (once with alice, but dave
    /// kept playing then: not the publisher's), dave three times briefly;
    /// bob publishes and suffers nothing. Nine incidents, each a viewer's.
    var report: MeetingReport {
        let call = Fixtures.bobCamCall(title: "Limits")
        var dave = Fixtures.bobCamViewer("dave", title: "Limits")
        for at in [10_000, 45_000, 115_000] as [Int64] { dave.stall("bob", "bob-cam", from: t0 + at, to: t0 + at + 200) }
        return MeetingReport(log: meeting([call.alice, call.bob, call.carol, dave], id: "m-limits"), config: TierConfig())
    }

    /// In-page links whose target is not on the page.
    func deadLinks(_ page: String) -> [String] {
        func all(_ pattern: String) -> [String] {
            let re = try! NSRegularExpression(pattern: pattern)
            return re.matches(in: page, range: NSRange(page.startIndex..., in: page)).map { String(page[Range($0.range(at: 1), in: page)!]) }
        }
        let ids = Set(all("\\sid=\"([^\"]+)\""))
        return all("href=\"#([^\"]+)\"").filter { !ids.contains($0) }
    }

    func charts(_ page: String) -> [String] {
        ["alice", "bob", "carol", "dave"].filter { page.contains("id=\"\(AnchorID.charts($0))\"") }
    }

    @Test func aSmallMeetingIsChartedAndListedWhole() {
        let r = report
        #expect(r.impacts.map(\.uid) == ["alice", "carol", "dave", "bob"])
        #expect(r.incidents.count == 9)
        let page = r.html
        #expect(charts(page) == ["alice", "bob", "carol", "dave"])
        #expect(!page.contains("Charted: the"))
        #expect(page.contains("All \(r.incidents.count) incidents, in time order"))
        #expect(!page.contains("left off this page"))
        var unlimited = r
        unlimited.chartLimit = nil
        unlimited.incidentListLimit = nil
        #expect(unlimited.html == page)
        #expect(deadLinks(page).isEmpty)
    }

    @Test func onlyTheMostAffectedAreCharted() {
        var r = report
        r.chartLimit = 1
        let page = r.html
        #expect(charts(page) == ["alice"])
        #expect(page.contains("Charted: the 1 most affected of 4 participants; charts of everyone"))
        #expect(page.contains("<code>mqa report meeting m-limits --uid UID --format html</code>"))
        // carol's name links her row of the participants table now.
        #expect(page.contains("href=\"#\(AnchorID.participant("carol"))\""))
        #expect(!page.contains("href=\"#\(AnchorID.charts("carol"))\""))
        #expect(r.participantAnchor("carol") == AnchorID.participant("carol"))
        #expect(r.participantAnchor("alice") == AnchorID.charts("alice"))
        #expect(deadLinks(page).isEmpty, "\(deadLinks(page))")
        // Markdown and JSON have no charts, and do not change.
        #expect(r.markdown == report.markdown)
        #expect(r.json.rendered() == report.json.rendered())
    }

    @Test func theFocusedParticipantIsChartedToo() {
        var r = report
        r.chartLimit = 1
        r.focus = ReportFocus(uid: "bob")
        let page = r.html
        #expect(charts(page) == ["alice", "bob"])
        #expect(page.contains("Charted: the 1 most affected of 4 participants and bob;"))
        #expect(page.contains("bob's quality charts"))
        r.chartLimit = 0
        #expect(charts(r.html) == ["bob"])
        r.focus = ReportFocus(uid: "alice")
        r.chartLimit = 1
        // Among the charted already: not named twice.
        #expect(r.html.contains("Charted: the 1 most affected of 4 participants; "))
    }

    @Test func theIncidentTableListsTheMostImpactAndEveryLinkedOne() throws {
        var r = report
        r.incidentListLimit = 1
        let page = r.html
        let listed = r.listedIncidents
        #expect(listed == listed.sorted())
        // The verdict's five with the most impact, and those the page
        // links to.
        for k in 0..<MeetingReport.verdictIncidents { #expect(listed.contains(r.rankedIncidents[k].number - 1)) }
        #expect(listed.count < r.incidents.count)
        #expect(page.contains("The \(listed.count) incidents with the most impact (of \(r.incidents.count)), in time order"))
        #expect(page.contains("\(r.incidents.count - listed.count) more, with less impact, are left off this page"))
        for k in r.incidents.indices {
            #expect(page.contains("id=\"\(AnchorID.incident(k + 1))\"") == listed.contains(k), "incident \(k + 1)")
        }
        #expect(deadLinks(page).isEmpty, "\(deadLinks(page))")
        // A focused participant's incidents shown up top stay listed.
        r.focus = ReportFocus(uid: "carol")
        for f in r.focusIncidents(r.focus!).prefix(MeetingReport.focusIncidentsShown) {
            #expect(r.listedIncidents.contains(f.number - 1))
        }
        #expect(deadLinks(r.html).isEmpty)
        #expect(r.markdown.contains("#\(r.incidents.count) "))
    }
}

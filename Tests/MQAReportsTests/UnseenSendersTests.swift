import Testing
@testable import MQAReports
import MQAAnalysis
import MQAModel
import MQATestSupport

/// A meeting read from the logs of only some of its people (a browser
/// dump holds one) says whose side it did not see: read alone, a call in
/// which the others suffered said "Nobody suffered" and nothing more.
@Suite struct UnseenSendersTests {
    static func viewer(watching senders: [String]) -> ClientBuilder {
        var c = ClientBuilder("ann")
        c.join(0)
        c.reports(from: 1000, to: 30_000, mos: 4.3)
        for (k, s) in senders.enumerated() {
            c.subscribe(500, s, "\(s)-cam-\(k)")
            c.status(1500, s, "\(s)-cam-\(k)", timedOut: false)
        }
        c.leave(30_000)
        return c
    }

    @Test func theLeadNamesSendersWithNoLog() {
        let uuid = "e8537a5c-85ea-427b-bc47-eb5a407da6b9"
        let one = MeetingReport(log: meeting([Self.viewer(watching: [uuid])]), config: TierConfig())
        #expect(one.verdictLead.hasSuffix("No incidents. Sent video but left no log here: e8537a5c… "
                                          + "(its network, and what it received, are not in these logs)."), "\(one.verdictLead)")
        let many = MeetingReport(log: meeting([Self.viewer(watching: ["bob", "carol", "dave", "erin"])]), config: TierConfig())
        #expect(many.verdictLead.hasSuffix("Sent video but left no log here: bob, carol, dave and 1 more "
                                           + "(their network, and what they received, are not in these logs)."), "\(many.verdictLead)")
        // bob's log is here: nothing to say.
        var bob = ClientBuilder("bob")
        bob.join(0)
        bob.reports(from: 1000, to: 30_000, mos: 4.3)
        bob.leave(30_000)
        let all = MeetingReport(log: meeting([Self.viewer(watching: ["bob"]), bob]), config: TierConfig())
        #expect(all.verdictLead.hasSuffix("No incidents."), "\(all.verdictLead)")
        #expect(all.markdown.contains("No incidents.\n") && one.markdown.contains("e8537a5c…"))
        // A numbered stream of a UUID (Firefox, Jitsi) is cut the same way.
        #expect(IncidentText.compactID(uuid + "-1") == "e8537a5c…-1")
        #expect(IncidentText.compactID(uuid + "-x") == uuid + "-x" && IncidentText.compactID("bob-cam-1") == "bob-cam-1")
    }

    /// A meeting with nobody in it, or whose people sent no quality report,
    /// said "Nobody suffered: no stalls, no poor/bad time", as if it had
    /// measured that.
    @Test func aLeadClaimsNothingItDidNotMeasure() {
        var early = ClientBuilder("alicia")
        early.context(0, .deviceChange, ["kind": "mic", "change": "default"])
        let nobody = MeetingReport(log: MeetingLog(meeting: "m-1", clients: [], contextOnly: [early.build()]), config: TierConfig())
        #expect(nobody.verdictLead == "No participant: no client in these logs joined this meeting or sent a quality report. No incidents.",
                "\(nobody.verdictLead)")
        #expect(nobody.markdown.contains("Nobody: no participant.\n"))
        var ann = ClientBuilder("ann")
        ann.join(0)
        ann.leave(30_000)
        let silent = MeetingReport(log: meeting([ann]), config: TierConfig())
        #expect(silent.verdictLead.hasPrefix("No measured quality report in these logs, so nothing to tell of tiers; no stalls, no abnormal disconnect."),
                "\(silent.verdictLead)")
        // Cold-start reports only (RTT 0): no tier was measured either.
        var cold = ann
        cold.reports(from: 1000, to: 29_000, mos: 4.3, rtt: 0)
        let unmeasured = MeetingReport(log: meeting([cold]), config: TierConfig()).verdictLead
        #expect(unmeasured.hasPrefix("Only cold-start quality reports in these logs, so nothing to tell of tiers;"), "\(unmeasured)")
        ann.reports(from: 1000, to: 29_000, mos: 4.3)
        #expect(MeetingReport(log: meeting([ann]), config: TierConfig()).verdictLead == "Nobody suffered: no stalls, no poor/bad time, no abnormal disconnect. No incidents.")
        // One who measured nothing is not covered by "no poor/bad time".
        var bob = ClientBuilder("bob")
        bob.join(0)
        bob.leave(30_000)
        let partly = MeetingReport(log: meeting([ann, bob]), config: TierConfig()).verdictLead
        #expect(partly.hasPrefix("Nobody suffered: no stalls, no poor/bad time, no abnormal disconnect (no measured quality report from bob: "
                                 + "nothing to tell of its tiers)."), "\(partly)")
    }

    /// A sender with no log has no row and no charts on the page: its name
    /// is text, not a link to a place that is not there. A long id links
    /// with itself as the tooltip (the cell shows its start).
    @Test func everyLinkOnThePageHasItsPlace() throws {
        let long = String(repeating: "9f", count: 32)
        var viewer = Self.viewer(watching: ["bob", "carol"])
        viewer.stall("bob", "bob-cam-0", from: 10_000, to: 14_000)
        var them = ClientBuilder(long)
        them.join(0)
        them.reports(from: 1000, to: 30_000, mos: 4.3)
        them.leave(30_000)
        let html = MeetingReport(log: meeting([viewer, them]), config: TierConfig()).html
        let ids = Set(html.matches(of: /id="([^"]+)"/).map { String($0.1) })
        let anchors = html.matches(of: /href="#([^"]+)"/).map { String($0.1) }
        #expect(!anchors.isEmpty && anchors.allSatisfy(ids.contains), "\(anchors.filter { !ids.contains($0) })")
        #expect(!html.contains("\">bob</a>") && html.contains("<td>bob</td>"))
        #expect(html.contains("class=\"long\" title=\"\(long)\">\(long)</a>"))
        // A link around markup gets its text as the tooltip; a short one none.
        #expect(HTMLPage.link("#x", "<span class=\"code\">31648822-badf-0fbf-78a6-e8b21a0c55d1</span>")
                == "<a href=\"#x\" class=\"long\" title=\"31648822-badf-0fbf-78a6-e8b21a0c55d1\"><span class=\"code\">31648822-badf-0fbf-78a6-e8b21a0c55d1</span></a>")
        #expect(HTMLPage.link("#x", "Jane Doe (Marketing, Berlin office)").contains("title=\"Jane Doe (Marketing, Berlin office)\""))
        #expect(HTMLPage.link("#x", "u-21f6") == "<a href=\"#x\">u-21f6</a>")
    }
}

import Foundation
import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis

/// Incidents first, issues under them: each issue of the meeting is shown
/// once, under the incident with the same trouble, in no incident, or in
/// Tier tuning (`IssuePlacement`).
@Suite struct IssuePlacementTests {
    let report = MeetingReport(log: Fixtures.sfu, config: TierConfig())

    /// `code uid` → where it went, on the m-42 fixture (incidents: #1
    /// carol's RTT spike and stall, #2 bob's poor tier, loss and
    /// disconnect, #3 carol-cam stalled for alice and bob together).
    @Test func eachIssueGoesUnderTheIncidentWithTheSameTrouble() {
        let placement = report.issuePlacement
        var got: [String: [IssuePlacement.Place]] = [:]
        for (issue, place) in zip(report.analysis.issues, placement.places) {
            got["\(issue.code.rawValue) \(issue.uid ?? "-")", default: []].append(place)
        }
        #expect(got["high_packet_loss bob"] == [.incident(2)])       // his loss spike
        #expect(got["reconnects bob"] == [.incident(2)])             // his disconnect
        #expect(got["abnormal_disconnect bob"] == [.incident(2)])
        #expect(got["high_latency carol"] == [.incident(1)])         // her RTT spike
        #expect(got["slow_first_frame carol"] == [.incident(1)])     // her first frame came inside #1
        #expect(got["video_stalls bob"] == [.incident(3)])           // carol-cam's shared stalls, bob among them
        #expect(got["high_jitter bob"] == [.noIncident])             // no incident of his shows jitter
        #expect(got["never_rendered alice"] == [.noIncident])        // alice has no incident
        #expect(got["stalls_under_good_tier alice"] == [.tuning])
        #expect(got["stalls_under_good_tier bob"] == [.tuning])
        #expect(got["stalls_under_good_tier carol"] == [.tuning])
        #expect(placement.problemCount == 8 && placement.unplaced.count == 2 && placement.tuning.count == 3)
    }

    @Test("the header counts incidents; the verdict lists incidents first, their issues under them, no tuning diagnostics")
    func htmlVerdict() throws {
        let page = report.html
        let sub = try #require(page.range(of: "<p class=\"sub\">").map { page[$0.upperBound...].prefix { $0 != "\n" } })
        #expect(sub.contains("3 incidents") && !sub.contains("issue"), "\(sub)")
        let verdict = try #require(page.range(of: "<section id=\"verdict\"").map { page[$0.lowerBound...] }
            .flatMap { v in v.range(of: "</section>").map { String(v[..<$0.upperBound]) } })
        let top = try #require(verdict.range(of: "<h3>Top incidents</h3>"))
        let who = try #require(verdict.range(of: "<h3>Who suffered most</h3>"))
        #expect(top.lowerBound < who.lowerBound)
        // The first listed is #2 (most impact), its cause on its first line, its issues under it.
        let first = try #require(verdict.range(of: "<li value=\"2\">").map { verdict[$0.lowerBound...].prefix { $0 != "\n" } })
        #expect(first.contains("<span class=\"cause cause-disconnect\">disconnect</span> <span class=\"when\">"))
        #expect(first.contains("issues: <span class=\"code\" title=\"bob\">high_packet_loss</span>"))
        #expect(verdict.contains("<h3>Issues in no incident</h3>"))
        #expect(!verdict.contains("stalls_under_good_tier") && !verdict.contains("Issues by code"))
        #expect(verdict.contains("8 issues</a>: 6 under an incident, 2 in no incident; 3 tier-tuning diagnostics"))
        // The sum the fleet ranking shows for the meeting.
        #expect(verdict.contains("Tier tuning</a> (11 in all, as the fleet ranking counts them)."))
        // The diagnostics have their own section, with the share of stalls the tier missed.
        let tuning = try #require(page.range(of: "<section id=\"tuning\">"))
        let issues = try #require(page.range(of: "<section id=\"issues\">"))
        #expect(tuning.lowerBound < issues.lowerBound)
        #expect(page.contains("3 of 3 stalls (100%) began under an excellent or good tier."))
        // The full list of incidents names each one's issues.
        #expect(page.contains("<td><span class=\"code\">high_latency</span> <span class=\"code\">slow_first_frame</span></td>"))
    }

    @Test func markdownPutsIssuesUnderIncidents() {
        let md = report.markdown
        #expect(md.contains("| incidents    | 3                        |"))
        #expect(md.contains("→ **disconnect** (disconnected (ice_timeout), back after 3 s; loss up to 7.5%; tier down to poor for 11.5 s)\n"
                            + "  - issues: high_packet_loss, reconnects, abnormal_disconnect\n"))
        #expect(md.contains("  - issues: video_stalls (bob)\n"))
        #expect(md.contains("### Issues in no incident\n\n- high_jitter ×1: bob\n- never_rendered ×1: alice\n"))
        #expect(md.contains("## Tier tuning\n"))
        let verdict = md.components(separatedBy: "## Verdict")[1].components(separatedBy: "## Participants")[0]
        #expect(!verdict.contains("stalls_under_good_tier"))
    }

    @Test func jsonSaysWhereEachIssueIs() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json.rendered().utf8)) as? [String: Any])
        let issues = try #require(object["issues"] as? [[String: Any]])
        #expect(issues.count == report.analysis.issues.count)
        for i in issues {
            let tuning = try #require(i["tuning"] as? Bool)
            #expect(tuning == (i["code"] as? String == "stalls_under_good_tier"))
            #expect(i.keys.contains("incident"))
        }
        let loss = try #require(issues.first { $0["code"] as? String == "high_packet_loss" })
        #expect(loss["incident"] as? Int == 2)
        let jitter = try #require(issues.first { $0["code"] as? String == "high_jitter" })
        #expect(jitter["incident"] is NSNull)
    }

    @Test func aCDNMeetingHasNoTuningSection() {
        let cdn = MeetingReport(log: Fixtures.cdn, config: TierConfig())
        #expect(!cdn.html.contains("<section id=\"tuning\">"))
        #expect(!cdn.markdown.contains("## Tier tuning"))
        // no_quality_data concerns the meeting: in no incident.
        #expect(cdn.issuePlacement.unplaced.map(\.code) == [.noQualityData])
    }
}

import Foundation
import Testing
@testable import MQAReports
import MQABase
import MQAModel
@testable import MQAAnalysis
import MQATestSupport

/// `report meeting --uid U --at T`: the report opens with U's incidents,
/// nearest to T first, incident times on the wall clock of `--tz`.
@Suite struct FocusReportTests {
    let t0 = Fixtures.t0  // 2026-11-29T10:00:00Z

    /// Two minutes; alice stalls alone at +20 s, +60 s and +100 s (the last
    /// longest), and alice and carol stall on bob-cam together at +80 s (a
    /// publisher-side incident, bob's); carol also stalls alone at +30 s.
    var report: MeetingReport {
        let call = Fixtures.bobCamCall(title: "Focus")
        return MeetingReport(log: meeting([call.alice, call.bob, call.carol], id: "m-focus"), config: TierConfig())
    }

    @Test func incidentsNearestToTFirst() throws {
        let r = report
        let found = r.focusIncidents(ReportFocus(uid: "alice", at: t0 + 61_000))
        #expect(found.map(\.incident.startTs) == [t0 + 60_000, t0 + 80_000, t0 + 100_000, t0 + 20_000])
        #expect(found.map(\.distanceMs) == [0, 19_000, 39_000, 40_000])
        // The shared stall is bob's incident (the track's), listed for alice
        // because she stalled in it; carol's own stall is not alice's.
        #expect(found[1].incident.uid == "bob" && found[1].incident.track == "bob-cam")
        #expect(!found.contains { $0.incident.startTs == t0 + 30_000 })
        // Without T: most impact first, as the verdict ranks.
        let ranked = r.focusIncidents(ReportFocus(uid: "alice"))
        #expect(ranked.first?.incident.startTs == t0 + 80_000)  // 3 s + 2.7 s stalled
        #expect(ranked.allSatisfy { $0.distanceMs == nil })
    }

    @Test func markdownOpensWithTheParticipant() throws {
        var r = report
        r.focus = ReportFocus(uid: "alice", at: t0 + 61_000)
        let md = r.markdown
        let focus = try #require(md.range(of: "## alice\n"))
        #expect(focus.lowerBound < md.range(of: "## Verdict")!.lowerBound)
        #expect(md.contains("4 incidents, nearest to 10:01:01 UTC first."), "\(md)")
        // Wall clock and offset, and where T is relative to it.
        #expect(md.contains("10:01:00–10:01:02 (+1:00, 2 s)") && md.contains("around 10:01:01"), "\(md)")
        #expect(md.contains("19 s after 10:01:01") && md.contains("40 s before 10:01:01"), "\(md)")
    }

    @Test func aZoneShowsLocalWallClocks() {
        var r = report
        r.display = TimeDisplay(zone: ClockZone("Australia/Sydney"))
        r.focus = ReportFocus(uid: "alice", at: t0 + 61_000)
        let md = r.markdown
        #expect(md.contains("| start        | 2026-11-29T10:00:00.000Z (21:00:00 Australia/Sydney, +11:00) |"), "\(md)")
        #expect(md.contains("21:01:00–21:01:02 (10:01:00–10:01:02 UTC, +1:00, 2 s)"), "\(md)")
        let html = r.html
        #expect(html.contains("<section id=\"focus\""))
        #expect(html.contains("clocks are Australia/Sydney (+11:00)"))
        #expect(html.contains(">21:00:30<") && !html.contains(">10:00:30<"), "chart axis in local time")
    }

    /// A T days from the meeting (`--at -3d`) is dated: its clock alone
    /// would read as a time on the meeting's day.
    @Test func aTimeOnAnotherDayIsDated() {
        var r = report
        r.focus = ReportFocus(uid: "alice", at: t0 - 3 * 86_400_000)
        let md = r.markdown
        #expect(md.contains("nearest to 2026-11-26 10:00:00 UTC first (2026-11-26 10:00:00 is 72 h 00 m before the meeting's start)"), "\(md)")
        r.focus = ReportFocus(uid: "alice", at: t0 + 61_000)
        #expect(r.markdown.contains("nearest to 10:01:01 UTC first."))
    }

    /// After a fall-back 01:30 happens twice: an incident whose offset is
    /// not the meeting start's (which the page names) carries its own.
    @Test func anIncidentAfterAClockChangeNamesItsOffset() {
        let ny = TimeDisplay(zone: ClockZone("America/New_York"))
        let start: Int64 = 1_793_510_400_000  // 2026-11-01T05:20:00Z, 01:20 EDT
        func incident(_ from: Int64, _ to: Int64) -> Incident {
            Incident(startTs: from, endTs: to, uid: "a", track: nil, kinds: [.stall], cause: .ownNetwork, evidence: IncidentEvidence())
        }
        let hour: Int64 = 3_600_000
        #expect(IncidentText.window(incident(start + 601_000, start + 663_000), from: start, ny) == "01:30:01–01:31:03 (05:30:01–05:31:03 UTC, +10:01, 1 m 02 s)")
        #expect(IncidentText.window(incident(start + hour + 601_000, start + hour + 663_000), from: start, ny)
                == "01:30:01–01:31:03 -05:00 (06:30:01–06:31:03 UTC, +1:10:01, 1 m 02 s)")
        // Across the change itself: both ends' offsets.
        #expect(IncidentText.window(incident(start + 2_340_000, start + 2_460_000), from: start, ny)
                == "01:59:00 -04:00–01:01:00 -05:00 (05:59:00–06:01:00 UTC, +39:00, 2 m 00 s)")
        #expect(IncidentText.window(incident(start + hour, start + hour + 2_000), from: start, TimeDisplay())
                == "06:20:00–06:20:02 (+1:00:00, 2 s)", "UTC names no offset")
        // The HTML incidents table's cells say the same.
        #expect(ny.clockAndOffset(start + hour + 601_000, from: start) == "01:30:01 -05:00 (06:30:01 UTC, +1:10:01)")
        #expect(ny.clockAndOffset(start + 601_000, from: start) == "01:30:01 (05:30:01 UTC, +10:01)")
    }

    @Test func jsonCarriesTheFocus() throws {
        var r = report
        r.focus = ReportFocus(uid: "alice", at: t0 + 61_000)
        let text = r.json.rendered()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let focus = try #require(object["focus"] as? [String: Any])
        let incidents = try #require(focus["incidents"] as? [[String: Any]])
        #expect(incidents.count == 4)
        #expect((incidents[0]["startTs"] as? NSNumber)?.int64Value == t0 + 60_000)
        #expect((incidents[0]["distanceMs"] as? NSNumber)?.intValue == 0)
        // distanceMs is how far; offsetMs says which side: the one 40 s away ended before T.
        #expect(incidents.map { ($0["offsetMs"] as? NSNumber)?.intValue } == [0, 19_000, 39_000, -40_000])
        #expect(incidents.map { ($0["distanceMs"] as? NSNumber)?.intValue } == [0, 19_000, 39_000, 40_000])
        #expect(incidents[0]["number"] is NSNumber)
        // Without a focus there is no key: reports keep their shape.
        #expect(!report.json.rendered().contains("\"focus\""))
    }

    @Test func aParticipantWithoutIncidentsIsSaidSo() {
        var r = report
        r.focus = ReportFocus(uid: "bob", at: t0 - 3_600_000)
        let md = r.markdown
        #expect(md.contains("bob: no stalls, no poor/bad time, no abnormal disconnect. 1 incident"), "\(md)")
        #expect(md.contains("1 incident, nearest to 09:00:00 UTC first (09:00:00 is 1 h 00 m before the meeting's start)."), "\(md)")
    }
}

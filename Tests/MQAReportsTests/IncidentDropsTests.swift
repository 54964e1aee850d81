import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQATestSupport

/// Two drops 3 s apart make one incident; its sentence tells both (it
/// said only "back after 10 s" of the first, as in a real Jitsi dump).
@Suite struct IncidentDropsTests {
    @Test func anIncidentOfTwoDropsTellsBoth() throws {
        let t = Fixtures.t0
        var alice = ClientBuilder("alice")
        alice.join(t)
        alice.reports(from: t + 2000, to: t + 20_000, mos: 4.3, rtt: 60)
        alice.disconnect(t + 20_000)
        alice.reconnect(t + 30_000)
        alice.reports(from: t + 30_000, to: t + 33_000, mos: 4.3, rtt: 60)
        alice.disconnect(t + 33_000)
        alice.reconnect(t + 43_000)
        alice.reports(from: t + 43_000, to: t + 60_000, mos: 4.3, rtt: 60)
        alice.leave(t + 60_000)
        let report = MeetingReport(log: MeetingLog(meeting: "m-drops", clients: [alice.build()]), config: TierConfig())
        let drops = report.incidents.filter { $0.cause == .disconnect }
        try #require(drops.count == 1, "\(report.incidents)")
        #expect(drops[0].evidence.awayEach == [10_000, 10_000])
        #expect(report.markdown.contains("(disconnected 2 times, back after 10 s, then after 10 s"), "\(report.markdown)")
    }
}

/// A meeting over midnight: its incidents' wall clocks carry the date (a
/// room's calls merged over months read "00:31:21" of any of its days).
@Suite struct MultiDayClockTests {
    static func client(_ t: Int64) -> ClientLog {
        var alice = ClientBuilder("alice")
        alice.join(t)
        alice.reports(from: t + 2000, to: t + 900_000, mos: 4.3, rtt: 60)
        alice.disconnect(t + 900_000, error: "ice_failed")
        alice.reconnect(t + 910_000)
        alice.reports(from: t + 910_000, to: t + 1_800_000, mos: 4.3, rtt: 60)
        alice.leave(t + 1_800_000)
        return alice.build()
    }

    @Test func clocksAreDatedWhenTheMeetingSpansDays() throws {
        let t = Fixtures.t0 + 13 * 3_600_000 + 50 * 60_000  // 2026-11-29 23:50 UTC
        var alice = ClientBuilder("alice")
        alice.join(t)
        alice.reports(from: t + 2000, to: t + 900_000, mos: 4.3, rtt: 60)
        alice.disconnect(t + 900_000, error: "ice_failed")  // 00:05 the next day
        alice.reconnect(t + 910_000)
        alice.reports(from: t + 910_000, to: t + 1_800_000, mos: 4.3, rtt: 60)
        alice.leave(t + 1_800_000)
        var report = MeetingReport(log: MeetingLog(meeting: "m-night", clients: [alice.build()]), config: TierConfig())
        #expect(report.markdown.contains("2026-11-30 00:05:00–2026-11-30 00:05:10"), "\(report.markdown)")
        // The chart's tooltip as the list (it made its own undated clock).
        #expect(report.html.contains("incident 1: 2026-11-30 00:05:00–2026-11-30 00:05:10"))
        // Days are the shown zone's: in Berlin the call is 00:50–01:20 of
        // one day, so its clocks stand alone there, while the UTC beside
        // them, over midnight, is dated.
        report.display = TimeDisplay(zone: ClockZone("Europe/Berlin"))
        #expect(!report.display.dated && report.display.utcDated)
        #expect(report.markdown.contains("01:05:00–01:05:10 (2026-11-30 00:05:00–2026-11-30 00:05:10 UTC"), "\(report.markdown)")
        // Over a Tokyo midnight (15:00 UTC) the local clocks are dated,
        // and the UTC beside them, all on one UTC day, is not.
        var late = MeetingReport(log: MeetingLog(meeting: "m-night", clients: [Self.client(Fixtures.t0 + 4 * 3_600_000 + 50 * 60_000)]),
                                 config: TierConfig())
        late.display = TimeDisplay(zone: ClockZone("Asia/Tokyo"))
        #expect(late.display.dated && !late.display.utcDated)
        #expect(late.markdown.contains("2026-11-30 00:05:00–2026-11-30 00:05:10 (15:05:00–15:05:10 UTC"),
                "\(late.markdown)")
        // Within one day, clocks alone, as before.
        let day = MeetingReport(log: Fixtures.sfu, config: TierConfig())
        #expect(!day.display.dated)
        #expect(!day.markdown.contains("2026-11-29 10:00"))
    }
}

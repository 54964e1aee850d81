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

import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQATestSupport

/// Reports every 10,001 ms (Jitsi's rtcstats) against the default 10 s
/// gap: the report warns, with the figures and the config that reads them
/// as meant; the same log under that config, or sampled every 2 s, does not.
@Suite struct SamplingNoticeTests {
    static func meeting(step: Int64) -> MeetingLog {
        var alice = ClientBuilder("alice")
        alice.join(Fixtures.t0)
        alice.reports(from: Fixtures.t0 + step, to: Fixtures.t0 + 13 * step, step: step, mos: 4.3, rtt: 80)
        alice.leave(Fixtures.t0 + 13 * step)
        return MeetingLog(meeting: "m-slow", clients: [alice.build()])
    }

    @Test func reportsAtTheGapAreFlagged() throws {
        let report = MeetingReport(log: Self.meeting(step: 10_001), config: TierConfig())
        let notice = try #require(report.sampling)
        // 12 reports, all warm (the first is 10 s after the join): 11 intervals.
        #expect(notice.intervals == 11)
        #expect(notice.gaps == 11)
        #expect(notice.medianIntervalMs == 10_001)
        #expect(notice.suggestedGapMs == 25_000)
        #expect(report.markdown.contains("> **Warning: Quality reports come every 10.0 s (median), and 11 of 11 intervals"))
        #expect(report.markdown.contains(#"FILE holding {"gapMs": 25000}"#))
        #expect(report.html.contains("<p class=\"notice\">Warning: Quality reports come every 10.0 s"))
        let json = report.json.rendered()
        #expect(json.contains(#""samplingNotice":{"#))
        #expect(json.contains(#""suggestedGapMs":25000"#))
    }

    @Test func noNoticeUnderTheSuggestedGapOrAtTwoSeconds() {
        var config = TierConfig()
        config.gapMs = 25_000
        let slow = MeetingReport(log: Self.meeting(step: 10_001), config: config)
        #expect(slow.sampling == nil)
        #expect(!slow.json.rendered().contains("samplingNotice"))
        #expect(!slow.markdown.contains("Quality reports come every"))
        #expect(MeetingReport(log: Self.meeting(step: 2_000), config: TierConfig()).sampling == nil)
        // Reports a few gaps apart in a call otherwise sampled every 2 s
        // are gaps, not a slow sampler.
        #expect(MeetingReport(log: Fixtures.sfu, config: TierConfig()).sampling == nil)
    }
}

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
        #expect(report.markdown.contains("> **Warning: Quality reports of alice come every 10.0 s (median), and 11 of 11 intervals"))
        #expect(report.markdown.contains(#"FILE holding {"gapMs": 25000}"#))
        #expect(report.html.contains("<p class=\"notice\">Warning: Quality reports of alice come every 10.0 s"))
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
        #expect(!slow.markdown.contains("come every"))
        #expect(MeetingReport(log: Self.meeting(step: 2_000), config: TierConfig()).sampling == nil)
        // Reports a few gaps apart in a call otherwise sampled every 2 s
        // are gaps, not a slow sampler.
        #expect(MeetingReport(log: Fixtures.sfu, config: TierConfig()).sampling == nil)
    }

    /// Decided per participant: alice at 2 s beside bob at 12 s flags bob
    /// alone, with his interval (pooled, the median was alice's 2 s and the
    /// value suggested 5000, below the gap).
    @Test func aSlowParticipantBesideAFastOneIsFlaggedAlone() throws {
        var alice = ClientBuilder("alice")
        alice.join(Fixtures.t0)
        alice.reports(from: Fixtures.t0 + 4000, to: Fixtures.t0 + 28_000, step: 2000, mos: 4.3, rtt: 80)
        alice.leave(Fixtures.t0 + 150_000)
        var bob = ClientBuilder("bob")
        bob.join(Fixtures.t0)
        bob.reports(from: Fixtures.t0 + 12_000, to: Fixtures.t0 + 150_000, step: 12_000, mos: 4.3, rtt: 80)
        bob.leave(Fixtures.t0 + 150_000)
        let report = MeetingReport(log: MeetingLog(meeting: "m-mixed", clients: [alice.build(), bob.build()]), config: TierConfig())
        let notice = try #require(report.sampling)
        #expect(notice.uids == ["bob"])
        #expect(notice.medianIntervalMs == 12_000)
        #expect(notice.suggestedGapMs == 30_000)
        #expect(notice.text.hasPrefix("quality reports of bob come every 12.0 s"))
        #expect(!notice.text.contains("`"))
    }

    /// A call sampled every 2 s with two long outages is no slow sampler.
    @Test func twoOutagesAreNoSlowSampler() {
        var alice = ClientBuilder("alice")
        alice.join(Fixtures.t0)
        alice.reports(from: Fixtures.t0 + 4000, to: Fixtures.t0 + 10_000, step: 2000, mos: 4.3, rtt: 80)
        alice.report(Fixtures.t0 + 40_000, mos: 4.3, rtt: 80)
        alice.report(Fixtures.t0 + 80_000, mos: 4.3, rtt: 80)
        alice.leave(Fixtures.t0 + 90_000)
        #expect(MeetingReport(log: MeetingLog(meeting: "m-gaps", clients: [alice.build()]), config: TierConfig()).sampling == nil)
    }

    /// A uid is the log's: in md it is escaped as everywhere on the page
    /// (it made a live image, and a newline with ESC started a heading and
    /// drove the terminal).
    @Test func aHostileUidIsEscapedInMarkdown() throws {
        for uid in ["![x](http://e.example/x.png)", "a\n# H \u{1b}[31mred"] {
            var c = ClientBuilder(uid)
            c.join(Fixtures.t0)
            c.reports(from: Fixtures.t0 + 12_000, to: Fixtures.t0 + 150_000, step: 12_000, mos: 4.3, rtt: 80)
            c.leave(Fixtures.t0 + 150_000)
            let report = MeetingReport(log: MeetingLog(meeting: "m-x", clients: [c.build()]), config: TierConfig())
            let notice = try #require(report.sampling)
            let line = try #require(report.markdown.split(separator: "\n").first { $0.hasPrefix("> **Warning: Quality reports of") })
            #expect(line.contains(MarkdownText.inline(uid)), "\(line)")
            #expect(!line.contains("\u{1b}") && !line.contains("![x]("), "\(line)")
            #expect(!report.markdown.contains("\n# H"))
            #expect(notice.text.contains(uid))
        }
    }

    /// Without points, a series keeps its intervals only for a participant
    /// the counting half of the rule cannot clear: the same intervals as a
    /// full series then, none otherwise, and the notice is the same.
    @Test func intervalsAreKeptOnlyForAPossibleSlowSampler() {
        let config = TierConfig()
        for (step, kept) in [(Int64(10_001), true), (2_000, false)] {
            let client = Self.meeting(step: step).clients[0]
            let full = QualitySeries(client, config: config)
            let lean = QualitySeries(client, config: config, keepingPoints: false)
            #expect(full.intervals.count == (kept ? 11 : 10))
            #expect(lean.points.isEmpty && lean.sdkTiers.isEmpty)
            #expect(lean.intervals == (kept ? full.intervals : []), "step \(step)")
            #expect(SamplingNotice.samplesSeldom(lean, gapMs: config.gapMs) == SamplingNotice.samplesSeldom(full, gapMs: config.gapMs))
        }
        // Three gaps among six intervals may be seldom; three among seven
        // cannot.
        #expect(SamplingNotice.maySampleSeldom(intervals: 6, gaps: 3))
        #expect(!SamplingNotice.maySampleSeldom(intervals: 7, gaps: 3))
        #expect(!SamplingNotice.maySampleSeldom(intervals: 2, gaps: 2))
    }
}

import Testing
@testable import MQAModel
@testable import MQAAnalysis
import MQATestSupport

/// Where a participant's quality feed went quiet (`FeedSilence`), the
/// stretches whose stream status says nothing of what they watched.
@Suite struct FeedSilenceTests {
    static func silences(_ c: ClientBuilder) -> [FeedSilence] {
        let log = meeting([c])
        return MeetingAnalysis.analyze(log, config: TierConfig()).participants[0].silences
    }

    @Test func gapsHeadAndTailLongerThanSixSecondsAreSilent() {
        var c = ClientBuilder("alice")
        c.join(0)
        c.reports(from: 7000, to: 30_000, step: 2000, mos: 4.3)  // first report 7 s after joining
        c.reports(from: 35_000, to: 40_000, step: 2000, mos: 4.3)  // 29 → 35 s: 6 s, not longer
        c.reports(from: 60_000, to: 80_000, step: 2000, mos: 4.3)  // 39 → 60 s
        c.leave(100_000)  // last report at 78 s
        #expect(Self.silences(c) == [FeedSilence(start: 0, end: 7000), FeedSilence(start: 39_000, end: 60_000),
                                     FeedSilence(start: 78_000, end: 100_000)])
    }

    @Test func aReconnectIsNotSilenceAcrossConnections() {
        var c = ClientBuilder("alice")
        c.join(0)
        c.reports(from: 1000, to: 20_000, step: 2000, mos: 4.3)
        c.disconnect(19_500, reason: "network", error: "timeout")
        c.reconnect(21_000)
        c.reports(from: 22_000, to: 40_000, step: 2000, mos: 4.3)
        c.leave(40_000)
        #expect(Self.silences(c) == [])
    }

    @Test func aFeedThatReportsRarelyAsARuleHasNoSilences() {
        // Every 10 s all call: that SDK's interval, not an app in the background.
        var c = ClientBuilder("alice")
        c.join(0)
        c.reports(from: 1000, to: 120_000, step: 10_000, mos: 4.3)
        c.leave(120_000)
        #expect(Self.silences(c) == [])
    }

    /// The rule is about gaps between reports: a silent head or tail does
    /// not make one long gap of two "the rule".
    @Test func aSilentHeadDoesNotMakeOneGapTheRule() {
        var c = ClientBuilder("alice")
        c.join(0)
        c.reports(from: 8000, to: 12_000, step: 2000, mos: 4.3)  // 8 and 10 s
        c.reports(from: 40_000, to: 42_000, step: 2000, mos: 4.3)  // 40 s
        c.leave(41_000)
        #expect(Self.silences(c) == [FeedSilence(start: 0, end: 8000), FeedSilence(start: 10_000, end: 40_000)])
        // One report a connection shows no interval: no silences, as before.
        var once = ClientBuilder("alice")
        once.join(0)
        once.reports(from: 20_000, to: 22_000, step: 2000, mos: 4.3)
        once.leave(60_000)
        #expect(Self.silences(once) == [])
    }

    /// No feed at all (a CDN meeting, or a client that never reported)
    /// is not a silence: there is no feed to fall silent.
    @Test func noFeedIsNoSilence() {
        var cdn = ClientBuilder("alice"), sfu = ClientBuilder("alice")
        cdn.join(0, engine: "cdn")
        cdn.leave(100_000)
        sfu.join(0)
        sfu.leave(100_000)
        #expect(Self.silences(cdn) == [])
        #expect(Self.silences(sfu) == [])
    }
}

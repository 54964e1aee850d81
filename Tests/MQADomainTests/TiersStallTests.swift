import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

@Suite("Subscriptions and stalls")
struct TiersStallTests {
    @Test("a stall under an excellent tier is reported, with its tier")
    func stallUnderExcellent() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        alice.subscribe(1000, "bob", "bob-cam")
        alice.status(2000, "bob", "bob-cam", timedOut: false)  // first frame
        alice.reports(from: 4000, to: 20000, mos: 4.4)
        alice.status(7000, "bob", "bob-cam", timedOut: true)
        alice.status(8000, "bob", "bob-cam", timedOut: true)    // repeat while stalled: ignored
        alice.status(9000, "bob", "bob-cam", timedOut: false)
        alice.status(9500, "bob", "bob-cam", timedOut: false)   // repeat while flowing: ignored
        alice.leave(20000)
        let a = MeetingAnalysis.analyze(meeting([alice]), config: TierConfig())
        let s = a.subscriptions[0]
        #expect(s.kind == "camera")
        #expect(s.subscribeTs == 1000 && s.endTs == 20000)
        #expect(s.firstFrameTs == 2000 && s.timeToFirstFrameMs == 1000)
        #expect(s.stalls == [Stall(start: 7000, end: 9000, open: false, tier: .excellent)])
        #expect(s.stalledMs == 2000)
        #expect(s.stallRatio == 2000.0 / 18000.0)
        #expect(s.stallsUnderGoodTier == 1)
        let codes = a.issues.map(\.code)
        #expect(codes.contains(.stallsUnderGoodTier))
        #expect(codes.contains(.videoStalls))
    }

    /// A value past its threshold reads as past it, in words and in JSON:
    /// a stall ratio of 0.050031 read "stalled 5% (> 5%)", and its JSON
    /// `value` 0.05 equalled `threshold`.
    @Test func aValuePastItsThresholdIsShownPastIt() throws {
        #expect(IssueFinder.short(5.0031, beside: 5) == "5.003")
        #expect(IssueFinder.short(7.5, beside: 5) == "7.5")
        #expect(IssueFinder.short(3.49996, beside: 3.5) == "3.49996", "below a low-MOS threshold")
        #expect(IssueFinder.short(5.0031) == "5")
        // One double below the threshold: no rounding keeps it below, so
        // it is shown whole (it read "mean MOS 3.5 (< 3.5)").
        #expect(IssueFinder.short(3.5.nextDown, beside: 3.5) == "3.4999999999999996")
        let issue = Issue(code: .videoStalls, uid: "a", value: 0.050031, threshold: 0.05, detail: "")
        guard case .object(let fields) = issue.json, case .double(let v)? = fields.first(where: { $0.0 == "value" })?.1 else {
            Testing.Issue.record("no value"); return
        }
        #expect(v == 0.05003)
        let plain = Issue(code: .videoStalls, uid: "a", value: 0.123456, threshold: 0.05, detail: "")
        guard case .object(let f2) = plain.json, case .double(let w)? = f2.first(where: { $0.0 == "value" })?.1 else { return }
        #expect(w == 0.1235, "four places where they suffice")
    }

    @Test("a track that never rendered has no first frame and no stall")
    func neverRendered() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        alice.subscribe(1000, "bob", "bob-cam")
        alice.status(3000, "bob", "bob-cam", timedOut: true)  // still loading: ignored
        alice.leave(10000)
        let a = MeetingAnalysis.analyze(meeting([alice]), config: TierConfig())
        let s = a.subscriptions[0]
        #expect(s.firstFrameTs == nil && s.timeToFirstFrameMs == nil)
        #expect(s.stalls.isEmpty)
        #expect(s.stallRatio == 0)
        #expect(a.issues.map(\.code) == [.neverRendered])
        #expect(a.tracksJSON.rendered().contains("\"firstFrameTs\":null"))
    }

    @Test("a stall still open at leave closes there, marked open")
    func openStallAtLeave() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        alice.subscribe(1000, "bob", "bob-cam", kind: "screen")
        alice.status(5000, "bob", "bob-cam", timedOut: false)  // slow first frame: 4000 ms
        alice.status(8000, "bob", "bob-cam", timedOut: true)
        alice.leave(10000)
        let a = MeetingAnalysis.analyze(meeting([alice]), config: TierConfig())
        let s = a.subscriptions[0]
        #expect(s.stalls == [Stall(start: 8000, end: 10000, open: true, tier: .unknown)])
        #expect(s.stallRatio == 2000.0 / 5000.0)
        #expect(Set(a.issues.map(\.code)) == [.videoStalls, .slowFirstFrame])
    }

    @Test("subscriptions end at unsubscribe, user_leave of the publisher, disconnect, or the last event")
    func subscriptionEnds() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        alice.subscribe(100, "bob", "bob-cam")
        alice.subscribe(200, "bob", "bob-cam")        // already open: ignored
        alice.subscribe(300, "carol", "carol-cam")
        alice.subscribe(400, "dave", "dave-cam")
        alice.event(1000, .streamUnsubscribe(publisher: "bob", track: "bob-cam"))
        alice.event(2000, .userLeave(target: "carol"))
        alice.status(2500, "erin", "erin-cam", timedOut: false)  // no subscription: opens one
        alice.disconnect(3000)
        alice.status(3500, "bob", "bob-cam", timedOut: false)    // after the disconnect: opens one
        alice.report(4000, mos: nil)                             // the last event
        let subs = MeetingAnalysis.analyze(meeting([alice]), config: TierConfig()).subscriptions
        #expect(subs.map(\.track) == ["bob-cam", "carol-cam", "dave-cam", "erin-cam", "bob-cam"])
        #expect(subs.map(\.subscribeTs) == [100, 300, 400, 2500, 3500])
        #expect(subs.map(\.endTs) == [1000, 2000, 3000, 3000, 4000])
        #expect(subs.map(\.kind) == ["camera", "camera", "camera", nil, nil])
        #expect(subs[3].timeToFirstFrameMs == 0)
    }

    @Test("the stall's tier is the subscriber's tier at its start; unknown in cold or gap time")
    func stallTierLookup() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        alice.subscribe(100, "bob", "bob-cam")
        alice.status(200, "bob", "bob-cam", timedOut: false)
        alice.status(1000, "bob", "bob-cam", timedOut: true)   // cold start: unknown
        alice.status(1100, "bob", "bob-cam", timedOut: false)
        alice.report(5000, mos: 2.0)
        alice.status(5000, "bob", "bob-cam", timedOut: true)   // same ms as the report: bad
        alice.status(5100, "bob", "bob-cam", timedOut: false)
        alice.status(15000, "bob", "bob-cam", timedOut: true)  // at lastTs + gapMs: unknown
        alice.status(15100, "bob", "bob-cam", timedOut: false)
        alice.leave(20000)
        let a = MeetingAnalysis.analyze(meeting([alice]), config: TierConfig())
        #expect(a.subscriptions[0].stalls.map(\.tier) == [.unknown, .bad, .unknown])
        let timeline = a.timelines["alice"]!
        #expect(timeline.tier(at: 14999) == .bad)
        #expect(timeline.tier(at: 4999) == .unknown)
    }
}

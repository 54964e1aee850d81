import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// `spec/tiers.md`, "Subscriptions and stalls": alice watches bob's camera.
@Suite("Spec: subscriptions and stalls")
struct SpecStallTests {
    /// (ts, timedOut) statuses of bob-cam after a subscribe at 1000; leave at `leave`.
    func subscription(_ statuses: [(Int64, Bool)], leave: Int64 = 20000) -> Subscription {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        alice.subscribe(1000, "bob", "bob-cam")
        for (t, timedOut) in statuses { alice.status(t, "bob", "bob-cam", timedOut: timedOut) }
        alice.leave(leave)
        return MeetingAnalysis.analyze(meeting([alice]), config: TierConfig()).subscriptions[0]
    }

    @Test("first frame: the first timedOut false; timeToFirstFrameMs = firstFrameTs - subscribeTs; timedOut true before it is ignored")
    func firstFrame() {
        let s = subscription([(1500, true), (2500, false)])
        #expect(s.firstFrameTs == 2500)
        #expect(s.timeToFirstFrameMs == 1500)
        #expect(s.stalls.isEmpty)
    }

    @Test("first frame: none before the end means never rendered, no stall, stall ratio 0")
    func neverRendered() {
        let s = subscription([(1500, true), (3000, true)])
        #expect(s.firstFrameTs == nil && s.neverRendered)
        #expect(s.stalls.isEmpty && s.stallRatio == 0)
    }

    @Test("stall: timedOut true at t1 opens, the next timedOut false at t2 closes [t1, t2); repeats are ignored")
    func stallWindows() {
        let s = subscription([(2000, false), (5000, true), (6000, true), (8000, false), (9000, false),
                              (12000, true), (12500, false)])
        #expect(s.stalls == [Stall(start: 5000, end: 8000, open: false), Stall(start: 12000, end: 12500, open: false)])
        #expect(s.stalledMs == 3500)
    }

    @Test("stall: one still open at the subscription's end closes there, marked open")
    func openAtEnd() {
        let s = subscription([(2000, false), (15000, true)], leave: 20000)
        #expect(s.stalls == [Stall(start: 15000, end: 20000, open: true)])
    }

    @Test("stall ratio = stalled ms / (subscription end - first frame ts)")
    func ratio() {
        let s = subscription([(2000, false), (5000, true), (8000, false)], leave: 20000)
        #expect(s.stallRatio == 3000.0 / 18000.0)
    }

    @Test("stall ratio is 0 when the subscription rendered for 0 ms")
    func ratioZeroRendered() {
        let s = subscription([(5000, false)], leave: 5000)
        #expect(s.firstFrameTs == 5000)
        #expect(s.stallRatio == 0)
    }

    @Test("subscription: a stream_subscribe while open is ignored; a status without one opens one at its ts, kind unknown")
    func openRules() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        alice.subscribe(100, "bob", "bob-cam")
        alice.subscribe(200, "bob", "bob-cam")
        alice.status(300, "carol", "carol-cam", timedOut: false)
        alice.leave(1000)
        let subs = MeetingAnalysis.analyze(meeting([alice]), config: TierConfig()).subscriptions
        #expect(subs.map(\.track) == ["bob-cam", "carol-cam"])
        #expect(subs.map(\.subscribeTs) == [100, 300])
        #expect(subs.map(\.kind) == ["camera", nil])
    }

    @Test("subscription: a user_leave of the publisher ends only that publisher's subscriptions")
    func userLeave() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        alice.subscribe(100, "bob", "bob-cam")
        alice.subscribe(200, "carol", "carol-cam")
        alice.event(3000, .userLeave(target: "bob"))
        alice.leave(10000)
        let subs = MeetingAnalysis.analyze(meeting([alice]), config: TierConfig()).subscriptions
        #expect(subs.map(\.endTs) == [3000, 10000])
    }

    @Test("stall tier: each stall carries the subscriber's tier at t1; stalls under excellent or good are the ones the tier did not see",
          arguments: [(4.3, Tier.excellent, 1), (3.8, .good, 1), (3.3, .fair, 0), (2.0, .bad, 0)])
    func stallTier(mos: Double, tier: Tier, unseen: Int) {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        alice.subscribe(100, "bob", "bob-cam")
        alice.status(200, "bob", "bob-cam", timedOut: false)
        alice.reports(from: 1000, to: 10000, mos: mos)
        alice.status(6000, "bob", "bob-cam", timedOut: true)
        alice.status(7000, "bob", "bob-cam", timedOut: false)
        alice.leave(10000)
        let s = MeetingAnalysis.analyze(meeting([alice]), config: directConfig()).subscriptions[0]
        #expect(s.stalls.map(\.tier) == [tier])
        #expect(s.stallsUnderGoodTier == unseen)
    }
}

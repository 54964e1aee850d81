import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// One test per rule of `Docs/incidents.md`, on hand-made meetings built
/// with the helpers of `IncidentTests`.
@Suite("Spec: incident rules")
struct SpecIncidentRuleTests {
    /// Alice in the call 0…120 s with warm reports every second at `mos`,
    /// except `[from, to)` at `low`.
    static func alice(low: Double, from: Int64, to: Int64) -> ClientBuilder {
        var a = ClientBuilder("alice", defaults: .tiers)
        a.join(0)
        for t in stride(from: Int64(1000), to: 120_000, by: 1000) { a.report(t, mos: (from..<to).contains(t) ? low : 4.3) }
        a.leave(120_000)
        return a
    }

    static func find(_ clients: [ClientBuilder], _ config: TierConfig = directConfig()) -> [Incident] {
        let log = meeting(clients)
        return IncidentFinder.find(log, MeetingAnalysis.analyze(log, config: config))
    }

    // MARK: Who suffered most

    @Test("impact = stalled time watched + warm time at poor or bad + 30 s per disconnect with an error", arguments: [
        ("a 2 s stall", Int64(2000)), ("5 s at poor", 5000), ("5 s at bad", 5000), ("5 s at fair", 0),
        ("a disconnect with an error", 30_000), ("a disconnect without one", 0),
    ])
    func impact(situation: String, impactMs: Int64) {
        var a: ClientBuilder
        switch situation {
        case "5 s at poor": a = Self.alice(low: 2.8, from: 30_000, to: 35_000)
        case "5 s at bad": a = Self.alice(low: 2.0, from: 30_000, to: 35_000)
        case "5 s at fair": a = Self.alice(low: 3.3, from: 30_000, to: 35_000)
        default: a = IncidentTests.calm("alice")
        }
        if situation == "a 2 s stall" {
            IncidentTests.watch(&a, "bob", "bob-cam")
            IncidentTests.stall(&a, "bob", "bob-cam", 20_000, 22_000)
        }
        if situation.hasPrefix("a disconnect") {
            a.disconnect(50_000, error: situation.hasSuffix("an error") ? "timeout" : nil)
            a.reconnect(50_000)
        }
        let ranked = ParticipantImpact.rank(MeetingAnalysis.analyze(meeting([a, IncidentTests.calm("bob")]), config: directConfig()))
        #expect(ranked.first { $0.uid == "alice" }?.impactMs == impactMs)
    }

    @Test("participants are ranked by impact, highest first, ties by uid")
    func ranking() {
        var carol = IncidentTests.calm("carol")
        IncidentTests.watch(&carol, "bob", "bob-cam")
        IncidentTests.stall(&carol, "bob", "bob-cam", 20_000, 21_000)
        let clients = [IncidentTests.calm("dave"), IncidentTests.calm("bob"), carol, IncidentTests.calm("alice")]
        let ranked = ParticipantImpact.rank(MeetingAnalysis.analyze(meeting(clients), config: directConfig()))
        #expect(ranked.map(\.uid) == ["carol", "alice", "bob", "dave"])
    }

    // MARK: Signals

    @Test("signal low_tier: a maximal run of the tier at poor or bad, adjacent holds joined")
    func lowTier() {
        var a = ClientBuilder("alice", defaults: .tiers)
        a.join(0)
        a.reports(from: 1000, to: 20_000, mos: 4.3)
        a.reports(from: 20_000, to: 25_000, mos: 2.8)  // poor
        a.reports(from: 25_000, to: 30_000, mos: 2.0)  // bad
        a.reports(from: 30_000, to: 60_000, mos: 4.3)
        a.leave(60_000)
        let incidents = Self.find([a])
        #expect(incidents.count == 1)
        #expect(incidents.first?.kinds == [.lowTier])
        #expect(incidents.first.map { [$0.startTs, $0.endTs] } == [20_000, 30_000])
        #expect(incidents.first?.evidence.lowTierMs == 10_000)
        #expect(incidents.first?.evidence.lowestTier == .bad)
        #expect(incidents.first?.cause == .ownNetwork)
    }

    /// Loss and RTT signals of a client with warm reports every second from
    /// 5000 to 19000 (loss 0.5, RTT 50) except at 8000 and 9000.
    static func spikes(loss: Double = 0.5, rtt: Double = 50) -> [IncidentSignal] {
        var a = ClientBuilder("alice", defaults: .tiers)
        a.join(0)
        for t in stride(from: Int64(5000), to: 20_000, by: 1000) {
            let spike = t == 8000 || t == 9000
            a.report(t, mos: 4.3, rtt: spike ? rtt : 50, loss: spike ? loss : 0.5)
        }
        a.leave(20_000)
        return IncidentSignal.spikes(a.build(), config: TierConfig()).strong
    }

    /// `keepRise` judges each rise run whole, as the finder's filter after
    /// the fact did: over two connections and the three kinds, the rises it
    /// keeps are those of the unfiltered call it accepts, in the same
    /// order, and the strong runs and the warm figures do not change.
    @Test func risesPickedWhileFoundAreThoseFilteredAfter() {
        var a = ClientBuilder("alice", defaults: .tiers)
        for (join, leave) in [(Int64(0), Int64(60_000)), (70_000, 130_000)] {
            a.join(join)
            for t in stride(from: join + 5000, to: leave, by: 1000) {
                let k = (t - join) / 1000
                // Baselines RTT 50, loss 0.5, jitter 5; rises every 7th to
                // 9th report, touching ones joining into runs.
                a.report(t, mos: 4.3, rtt: k % 7 < 2 ? 260 : 50, loss: k % 8 == 0 ? 3 : 0.5, jitter: k % 9 < 3 ? 40 : 5)
            }
            a.leave(leave)
        }
        let client = a.build()
        let all = IncidentSignal.spikes(client, config: TierConfig())
        let keep: (Int64, Int64) -> Bool = { start, end in start < 40_000 || end > 110_000 }
        let picked = IncidentSignal.spikes(client, config: TierConfig(), keepRise: keep)
        #expect(Set(all.rises.map(\.kind)) == [.loss, .rtt, .jitter])
        #expect(picked.rises == all.rises.filter { keep($0.start, $0.end) })
        #expect(picked.rises.count > 2 && picked.rises.count < all.rises.count)
        #expect(picked.strong == all.strong && picked.figures == all.figures)
        #expect(IncidentSignal.spikes(client, config: TierConfig()) { _, _ in false }.rises.isEmpty)
    }

    @Test("signal loss: a maximal run of warm reports with loss > 5 %", arguments: [
        (5.0, 0), (5.01, 1), (18.0, 1),
    ])
    func loss(loss: Double, runs: Int) {
        let s = Self.spikes(loss: loss).filter { $0.kind == .loss }
        #expect(s.count == runs)
        if runs == 1 { #expect([s[0].start, s[0].end] == [8000, 10_000] && s[0].peak == loss) }
    }

    @Test("signal rtt: the same with RTT > 400 ms", arguments: [
        (400.0, 0), (400.5, 1), (900.0, 1),
    ])
    func rtt(rtt: Double, runs: Int) {
        let s = Self.spikes(rtt: rtt).filter { $0.kind == .rtt }
        #expect(s.count == runs)
        if runs == 1 { #expect([s[0].start, s[0].end] == [8000, 10_000] && s[0].peak == rtt) }
    }

    @Test("signal loss: a report covers [ts, next warm report), at most gapMs, never past its connection's end; cold reports none", arguments: [
        ("at most gapMs", [[Int64(5000), 15_000]]),
        ("never past the end", [[6000, 6500]]),
        ("cold reports are no signal", []),
        ("touching covers join", [[5000, 7000]]),
    ] as [(String, [[Int64]])])
    func lossWindow(situation: String, windows: [[Int64]]) {
        var a = ClientBuilder("alice", defaults: .tiers)
        a.join(0)
        switch situation {
        case "at most gapMs": a.report(5000, mos: 4, loss: 8); a.report(30_000, mos: 4, loss: 0.5); a.leave(31_000)
        case "never past the end": a.report(5000, mos: 4, loss: 0.5); a.report(6000, mos: 4, loss: 8); a.leave(6500)
        case "cold reports are no signal": a.report(2000, mos: 4, loss: 9); a.report(5000, mos: 4, loss: 0.5); a.leave(6000)
        default: a.report(5000, mos: 4, loss: 8); a.report(6000, mos: 4, loss: 8); a.report(7000, mos: 4, loss: 0.5); a.leave(8000)
        }
        let s = IncidentSignal.spikes(a.build(), config: TierConfig()).strong.filter { $0.kind == .loss }
        #expect(s.map { [$0.start, $0.end] } == windows)
    }

    @Test("signal disconnect: one with an error, or one the client came back after, to the next reconnect/join", arguments: [
        ("timeout", true, [Int64(10_000), 13_000]),
        (nil, true, [10_000, 13_000]),
        ("timeout", false, [10_000, 10_000]),
        (nil, false, nil),
    ] as [(String?, Bool, [Int64]?)])
    func disconnect(error: String?, back: Bool, window: [Int64]?) {
        var a = ClientBuilder("alice", defaults: .tiers)
        a.join(0)
        a.disconnect(10_000, error: error)
        if back { a.reconnect(13_000); a.leave(20_000) }
        let s = IncidentSignal.disconnects(a.build())
        #expect(s.map { [$0.start, $0.end] } == (window.map { [$0] } ?? []))
        if back, let first = s.first { #expect(first.awayMs == 3000) }
        if !back, let first = s.first { #expect(first.awayMs == nil) }
    }

    // MARK: Stalls that are the publisher's

    /// Alice and carol watch bob-cam; alice stalls over [40000, 41000),
    /// carol from `carolStart` for 1 s. Returns the incidents of the meeting.
    static func twoWatchers(carolStart: Int64, dave: ((inout ClientBuilder) -> Void)? = nil) -> [Incident] {
        var alice = IncidentTests.calm("alice"), carol = IncidentTests.calm("carol")
        IncidentTests.watch(&alice, "bob", "bob-cam")
        IncidentTests.watch(&carol, "bob", "bob-cam")
        IncidentTests.stall(&alice, "bob", "bob-cam", 40_000, 41_000)
        IncidentTests.stall(&carol, "bob", "bob-cam", carolStart, carolStart + 1000)
        var clients = [alice, IncidentTests.calm("bob"), carol]
        if let dave {
            var d = IncidentTests.calm("dave")
            dave(&d)
            clients.append(d)
        }
        return find(clients, TierConfig())
    }

    @Test("shared stalls: a stall joins the cluster when it starts before the cluster's end + 2 s", arguments: [
        (Int64(42_999), true), (43_000, false), (40_500, true),
    ])
    func clusterTolerance(carolStart: Int64, shared: Bool) {
        let incidents = Self.twoWatchers(carolStart: carolStart)
        if shared {
            #expect(incidents.map(\.uid) == ["bob"])
            #expect(incidents.first?.track == "bob-cam" && incidents.first?.cause == .publisher)
            #expect(incidents.first?.evidence.subscribers == ["alice", "carol"])
        } else {
            #expect(incidents.map(\.uid) == ["alice", "carol"])
            #expect(incidents.allSatisfy { $0.track == nil })
        }
    }

    @Test("shared stalls: at least two different subscribers stalled in the cluster")
    func twoSubscribers() {
        var alice = IncidentTests.calm("alice")
        IncidentTests.watch(&alice, "bob", "bob-cam")
        IncidentTests.stall(&alice, "bob", "bob-cam", 40_000, 41_000)
        IncidentTests.stall(&alice, "bob", "bob-cam", 41_500, 42_000)
        let incidents = Self.find([alice, IncidentTests.calm("bob")], TierConfig())
        #expect(incidents.map(\.uid) == ["alice"])
        #expect(incidents.first?.track == nil && incidents.first?.cause == .unknown)
    }

    @Test("shared stalls: every subscriber rendering at the cluster's start (first frame at or before it, still subscribed) stalled", arguments: [
        ("first frame at the cluster's start: watching", false),
        ("first frame after the start: not watching", true),
        ("unsubscribed at the start: not watching", true),
        ("unsubscribed just after the start: watching", false),
    ])
    func everyWatcher(situation: String, shared: Bool) {
        let incidents = Self.twoWatchers(carolStart: 40_000) { d in
            d.subscribe(30_000, "bob", "bob-cam")
            switch situation {
            case "first frame at the cluster's start: watching": d.status(40_000, "bob", "bob-cam", timedOut: false)
            case "first frame after the start: not watching": d.status(40_001, "bob", "bob-cam", timedOut: false)
            case "unsubscribed at the start: not watching":
                d.status(31_000, "bob", "bob-cam", timedOut: false)
                d.event(40_000, .streamUnsubscribe(publisher: "bob", track: "bob-cam"))
            default:
                d.status(31_000, "bob", "bob-cam", timedOut: false)
                d.event(40_001, .streamUnsubscribe(publisher: "bob", track: "bob-cam"))
            }
        }
        #expect(incidents.contains { $0.track == "bob-cam" } == shared)
    }

    // MARK: Merging

    @Test("merging: a signal joins the open incident when it starts at most 10 s after its end", arguments: [
        (Int64(31_000), [[Int64(20_000), 32_000]]),
        (31_001, [[20_000, 21_000], [31_001, 32_001]]),
    ] as [(Int64, [[Int64]])])
    func merging(second: Int64, windows: [[Int64]]) {
        var alice = IncidentTests.calm("alice")
        IncidentTests.watch(&alice, "bob", "bob-cam")
        IncidentTests.stall(&alice, "bob", "bob-cam", 20_000, 21_000)
        IncidentTests.stall(&alice, "bob", "bob-cam", second, second + 1000)
        let incidents = Self.find([alice, IncidentTests.calm("bob")], TierConfig())
        #expect(incidents.map { [$0.startTs, $0.endTs] } == windows)
    }

    // MARK: Cause

    @Test("cause 2: an incident with a disconnect is a disconnect, even with the participant's own loss in it")
    func causeDisconnect() {
        var a = ClientBuilder("alice", defaults: .tiers)
        a.join(0)
        for t in stride(from: Int64(1000), to: 50_000, by: 1000) { a.report(t, mos: 4.3, loss: t >= 45_000 ? 12 : 0.5) }
        a.disconnect(50_000, error: "ice_timeout")
        a.reconnect(52_000)
        a.reports(from: 53_000, to: 100_000, mos: 4.3)
        a.leave(100_000)
        let incidents = Self.find([a], TierConfig())
        #expect(incidents.count == 1)
        #expect(incidents.first?.kinds == [.loss, .disconnect])
        #expect(incidents.first?.cause == .disconnect)
    }

    @Test("cause 3: the participant's own loss, RTT or low tier is own_network", arguments: [
        "loss", "rtt", "low tier",
    ])
    func causeOwnNetwork(kind: String) {
        var a = ClientBuilder("alice", defaults: .tiers)
        a.join(0)
        for t in stride(from: Int64(1000), to: 60_000, by: 1000) {
            let bad = t >= 30_000 && t < 33_000
            a.report(t, mos: bad && kind == "low tier" ? 2.0 : 4.3, rtt: bad && kind == "rtt" ? 600 : 50,
                     loss: bad && kind == "loss" ? 9 : 0.5)
        }
        a.leave(60_000)
        let incidents = Self.find([a])
        #expect(incidents.count == 1)
        #expect(incidents.first?.cause == .ownNetwork)
    }

    @Test("cause 4: a stall within 2 s of its publisher's loss, RTT, low-tier or disconnect signal is the publisher's", arguments: [
        (Int64(68_000), IncidentCause.publisher), (69_000, .unknown), (59_000, .publisher), (57_000, .unknown),
    ])
    func causePublisher(lossFrom: Int64, cause: IncidentCause) {
        // Bob's loss covers [lossFrom, lossFrom + 2000]; alice's stall is [62000, 66000].
        var bob = ClientBuilder("bob", defaults: .tiers)
        bob.join(0)
        for t in stride(from: Int64(1000), to: 120_000, by: 1000) {
            bob.report(t, mos: 4.3, loss: t >= lossFrom && t < lossFrom + 2000 ? 12 : 0.5)
        }
        bob.leave(120_000)
        var alice = IncidentTests.calm("alice")
        IncidentTests.watch(&alice, "bob", "bob-cam")
        IncidentTests.stall(&alice, "bob", "bob-cam", 62_000, 66_000)
        let mine = Self.find([alice, bob], TierConfig()).first { $0.uid == "alice" }
        #expect(mine?.cause == cause)
        if cause == .publisher { #expect(mine?.evidence.publishers == ["bob"] && mine?.evidence.publisherKinds == [.loss]) }
    }

    @Test("cause 5: stalls with no trouble on either side are unknown")
    func causeUnknown() {
        var alice = IncidentTests.calm("alice")
        IncidentTests.watch(&alice, "bob", "bob-cam")
        IncidentTests.stall(&alice, "bob", "bob-cam", 62_000, 66_000)
        let incidents = Self.find([alice, IncidentTests.calm("bob")], TierConfig())
        #expect(incidents.map(\.cause) == [.unknown])
    }
}

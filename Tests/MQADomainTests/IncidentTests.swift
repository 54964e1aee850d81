import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// Incidents on hand-made meetings: each test builds the one situation a
/// cause is meant for and checks the window, kinds and cause found.
@Suite("Incidents")
struct IncidentTests {
    /// A participant in the call from 0 to 120 s with calm warm reports
    /// every second (loss 0.5 %, RTT 50 ms, MOS 4.3).
    static func calm(_ uid: String) -> ClientBuilder {
        var c = ClientBuilder(uid, defaults: .tiers)
        c.join(0)
        c.reports(from: 1000, to: 120_000, mos: 4.3)
        c.leave(120_000)
        return c
    }

    static func watch(_ c: inout ClientBuilder, _ publisher: String, _ track: String) {
        c.subscribe(500, publisher, track)
        c.status(1500, publisher, track, timedOut: false)
    }

    static func stall(_ c: inout ClientBuilder, _ publisher: String, _ track: String, _ from: Int64, _ to: Int64) {
        c.status(from, publisher, track, timedOut: true)
        c.status(to, publisher, track, timedOut: false)
    }

    static func find(_ clients: [ClientBuilder]) -> [Incident] {
        let log = meeting(clients)
        return IncidentFinder.find(log, MeetingAnalysis.analyze(log, config: TierConfig()))
    }

    @Test("a stall every watching subscriber saw together is the publisher's, once")
    func publisherSideStall() {
        var bob = Self.calm("bob"), alice = Self.calm("alice"), carol = Self.calm("carol")
        Self.watch(&alice, "bob", "bob-cam")
        Self.watch(&carol, "bob", "bob-cam")
        Self.stall(&alice, "bob", "bob-cam", 40_000, 46_000)
        Self.stall(&carol, "bob", "bob-cam", 40_700, 45_500)  // within the 2 s alignment
        bob.subscribe(500, "alice", "alice-cam")
        let incidents = Self.find([alice, bob, carol])
        #expect(incidents.count == 1)
        let i = incidents[0]
        #expect(i.uid == "bob" && i.track == "bob-cam")
        #expect(i.cause == .publisher)
        #expect(i.kinds == [.stall])
        #expect(i.startTs == 40_000 && i.endTs == 46_000)
        #expect(i.evidence.subscribers == ["alice", "carol"])
        #expect(i.evidence.stallCount == 2 && i.evidence.stalledMs == 6000 + 4800)
        #expect(i.impactMs == 10_800)
        #expect(i.evidence.publishers == ["bob"] && i.evidence.publisherKinds.isEmpty)
    }

    @Test("a stall only some watchers saw stays with its subscriber")
    func partlySharedStallIsNotThePublishers() {
        var alice = Self.calm("alice"), carol = Self.calm("carol"), dave = Self.calm("dave")
        Self.watch(&alice, "bob", "bob-cam")
        Self.watch(&carol, "bob", "bob-cam")
        Self.watch(&dave, "bob", "bob-cam")  // watching the whole time, never stalled
        Self.stall(&alice, "bob", "bob-cam", 40_000, 44_000)
        Self.stall(&carol, "bob", "bob-cam", 40_000, 44_000)
        let bob = Self.calm("bob")
        let incidents = Self.find([alice, bob, carol, dave])
        #expect(incidents.map(\.uid) == ["alice", "carol"])
        #expect(incidents.allSatisfy { $0.cause == .unknown && $0.track == nil && $0.evidence.tracks == ["bob-cam"] })
    }

    @Test("two viewers stalling together while more watch on: each viewer's own side")
    func mostWatchersPlayingOnIsTheViewersSide() {
        var alice = Self.calm("alice"), carol = Self.calm("carol"), dave = Self.calm("dave"), erin = Self.calm("erin")
        Self.watch(&alice, "bob", "bob-cam")
        Self.watch(&carol, "bob", "bob-cam")
        Self.watch(&dave, "bob", "bob-cam")
        Self.watch(&erin, "bob", "bob-cam")
        Self.stall(&alice, "bob", "bob-cam", 40_000, 44_000)
        Self.stall(&carol, "bob", "bob-cam", 40_500, 43_000)
        let incidents = Self.find([alice, Self.calm("bob"), carol, dave, erin])
        #expect(incidents.map(\.uid) == ["alice", "carol"])
        // Clean networks: the frames reached dave and erin, so each viewer's device.
        #expect(incidents.allSatisfy { $0.cause == .ownDevice && $0.evidence.othersPlaying == 2 })
    }

    @Test("in a P2P mesh another viewer playing on does not make a lone freeze the viewer's device")
    func meshViewersGetTheirOwnStreams() {
        func mesh(_ engine: String) -> [Incident] {
            func joined(_ uid: String) -> ClientBuilder {
                var c = ClientBuilder(uid, defaults: .tiers)
                c.join(0, engine: engine)
                c.reports(from: 1000, to: 120_000, mos: 4.3)
                c.leave(120_000)
                return c
            }
            var alice = joined("alice"), carol = joined("carol"), dave = joined("dave")
            for viewer in [0, 1, 2] {
                var c = [alice, carol, dave][viewer]
                Self.watch(&c, "bob", "bob-cam")
                if viewer == 0 { Self.watch(&c, "erin", "erin-cam") }
                switch viewer { case 0: alice = c; case 1: carol = c; default: dave = c }
            }
            Self.stall(&alice, "bob", "bob-cam", 40_000, 41_000)
            return Self.find([alice, joined("bob"), carol, dave, joined("erin")])
        }
        // Through an SFU the frames that reached carol and dave were sent:
        // alice's device (rule 6).
        #expect(mesh("sfu").first?.cause == .ownDevice)
        // In a mesh bob sent alice a stream of her own: her other tile kept
        // playing, so the sender's side (rule 9).
        let p2p = mesh("p2p").first
        #expect(p2p?.cause == .publisher && p2p?.evidence.otherTracksPlaying == 1 && p2p?.evidence.othersPlaying == nil)
    }

    @Test("a track's incident stays apart from its publisher's own trouble, naming it as evidence")
    func trackIncidentKeepsThePublishersSignalsApart() {
        var bob = ClientBuilder("bob", defaults: .tiers)
        bob.join(0)
        for t in stride(from: Int64(1000), to: 120_000, by: 1000) { bob.report(t, mos: 4.3, rtt: 450) }  // high RTT throughout
        bob.leave(120_000)
        var alice = Self.calm("alice"), carol = Self.calm("carol")
        Self.watch(&alice, "bob", "bob-cam")
        Self.watch(&carol, "bob", "bob-cam")
        Self.stall(&alice, "bob", "bob-cam", 40_000, 43_000)
        Self.stall(&carol, "bob", "bob-cam", 40_500, 43_000)
        let incidents = Self.find([alice, bob, carol])
        let track = incidents.first { $0.track == "bob-cam" }
        #expect(track?.startTs == 40_000 && track?.endTs == 43_000)
        #expect(track?.evidence.publisherKinds == [.rtt])
        let own = incidents.first { $0.uid == "bob" && $0.track == nil }
        #expect(own?.kinds == [.rtt] && own?.cause == .ownNetwork)
        #expect(incidents.count == 2)
    }

    @Test("a subscriber's own loss spike during their stall is their own network")
    func subscriberLossSpike() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        for t in stride(from: Int64(1000), to: 120_000, by: 1000) {
            let spike = t >= 30_000 && t < 36_000
            alice.report(t, mos: 4.3, rtt: spike ? 520 : 50, loss: spike ? 18 : 0.5)
        }
        alice.leave(120_000)
        Self.watch(&alice, "bob", "bob-cam")
        Self.stall(&alice, "bob", "bob-cam", 33_000, 37_000)
        var carol = Self.calm("carol")
        Self.watch(&carol, "bob", "bob-cam")  // watching, no stall: not publisher side
        let incidents = Self.find([alice, Self.calm("bob"), carol])
        #expect(incidents.count == 1)
        let i = incidents[0]
        #expect(i.uid == "alice" && i.cause == .ownNetwork)
        #expect(i.kinds == [.stall, .loss, .rtt])
        #expect(i.startTs == 30_000 && i.endTs == 37_000)
        #expect(i.evidence.maxLossPct == 18 && i.evidence.maxRttMs == 520)
        #expect(i.json.rendered().contains(#""cause":"own_network""#))
    }

    /// A participant with calm 1 s reports but for `loss` (ts → %).
    static func reporting(_ uid: String, loss: [Int64: Double]) -> ClientBuilder {
        var c = ClientBuilder(uid, defaults: .tiers)
        c.join(0)
        for t in stride(from: Int64(1000), to: 120_000, by: 1000) { c.report(t, mos: 4.3, loss: loss[t] ?? 0.5) }
        c.leave(120_000)
        return c
    }

    /// The recorded mesh call (bob's uplink cut from 40 to 47 s): alice and
    /// carol froze on bob's camera together; each counted the gap as loss
    /// in their first report after the packets came back, alice while still
    /// frozen (frames at 49 s), carol after her subscription had ended (the
    /// packets stopped at 45 s) and began again at 47 s.
    static func lateLossCall(aliceLoss: [Int64: Double] = [48_000: 63.9]) -> [ClientBuilder] {
        var alice = Self.reporting("alice", loss: aliceLoss)
        var carol = Self.reporting("carol", loss: [47_000: 82.2])
        let bob = Self.reporting("bob", loss: [48_000: 23.4])
        Self.watch(&alice, "bob", "bob-cam")
        Self.stall(&alice, "bob", "bob-cam", 40_600, 49_100)
        Self.watch(&carol, "bob", "bob-cam")
        carol.status(40_700, "bob", "bob-cam", timedOut: true)
        carol.event(45_500, .streamUnsubscribe(publisher: "bob", track: "bob-cam"))
        carol.subscribe(47_000, "bob", "bob-cam")
        carol.status(49_200, "bob", "bob-cam", timedOut: false)
        return [alice, bob, carol]
    }

    @Test("loss a viewer counts as a sender's stream comes back is the sender's, not the viewer's network")
    func lateLossIsTheSenders() {
        let incidents = Self.find(Self.lateLossCall())
        let track = incidents.first { $0.track == "bob-cam" }
        #expect(track?.cause == .publisher && track?.evidence.subscribers == ["alice", "carol"])
        #expect(track?.evidence.lateLossPct == 82.2 && track?.evidence.lateLossViewers == ["alice", "carol"])
        #expect(track?.json.rendered().contains(#""lateLossPct":82.2,"lateLossViewers":["alice","carol"]"#) == true)
        // Neither viewer has an incident of their own; bob's own loss stays his.
        #expect(incidents.filter { $0.track == nil }.map(\.uid) == ["bob"])
    }

    @Test("a viewer's longer loss, or loss from before the freeze, stays the viewer's own")
    func lossBeyondTheGapStaysTheViewers() {
        // Loss for 6 reports from 48 s: more than a gap counted late.
        let long = Dictionary(uniqueKeysWithValues: (48...53).map { (Int64($0) * 1000, 20.0) })
        var incidents = Self.find(Self.lateLossCall(aliceLoss: long))
        #expect(incidents.first { $0.uid == "alice" }?.cause == .ownNetwork)
        #expect(incidents.first { $0.track == "bob-cam" }?.evidence.lateLossViewers == ["carol"])
        // Loss from just before the freeze began: it may be what froze it.
        incidents = Self.find(Self.lateLossCall(aliceLoss: [40_000: 30]))
        #expect(incidents.first { $0.uid == "alice" }?.cause == .ownNetwork)
        // Loss well after the stream came back (49.1 s + 2 s), or long before (3 s).
        for late in [52_000, 45_000] as [Int64] {
            incidents = Self.find(Self.lateLossCall(aliceLoss: [late: 30]))
            #expect(incidents.first { $0.uid == "alice" }?.evidence.maxLossPct == 30)
        }
        // Loss during the freeze before it (the viewer's own network froze it too).
        incidents = Self.find(Self.lateLossCall(aliceLoss: [44_000: 9, 48_000: 63.9]))
        #expect(incidents.first { $0.uid == "alice" }?.evidence.maxLossPct == 63.9)
    }

    @Test("a lone viewer's loss after a stall stays theirs, even next to the publisher's trouble")
    func lateLossNeedsASharedStall() {
        // One viewer cannot tell the sender's gap from its own downlink:
        // the loss stays, and the viewer's network is the cause (rule 3).
        let bob = Self.reporting("bob", loss: [44_000: 12, 45_000: 12])
        var alice = Self.reporting("alice", loss: [49_000: 60])
        Self.watch(&alice, "bob", "bob-cam")
        Self.stall(&alice, "bob", "bob-cam", 43_000, 50_000)
        let mine = Self.find([alice, bob]).first { $0.uid == "alice" }
        #expect(mine?.cause == .ownNetwork && mine?.evidence.maxLossPct == 60 && mine?.evidence.lateLossPct == nil)
    }

    /// Alice's reports every second, but every `every` ms with RTT `rtt`
    /// (and loss `loss`) from 40 to 60 s; both her tiles stall meanwhile.
    static func strained(every: Int64, rtt: Double, loss: Double = 0.5) -> [Incident] {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        var t: Int64 = 1000
        while t < 120_000 {
            let slow = t >= 40_000 && t < 60_000
            alice.report(t, mos: 4.3, rtt: slow ? rtt : 50, loss: slow ? loss : 0.5)
            t += slow ? every : 1000
        }
        alice.leave(120_000)
        Self.watch(&alice, "bob", "bob-cam")
        Self.watch(&alice, "carol", "carol-cam")
        Self.stall(&alice, "bob", "bob-cam", 42_000, 50_000)
        Self.stall(&alice, "carol", "carol-cam", 42_500, 49_000)
        return Self.find([alice, Self.calm("bob"), Self.calm("carol")]).filter { $0.uid == "alice" }
    }

    @Test("RTT that rose only while the client's own reports came seconds late is its device")
    func strainedFeedIsTheDevice() {
        let starved = Self.strained(every: 3000, rtt: 1500)
        #expect(starved.count == 1 && starved[0].cause == .ownDevice)
        #expect(starved[0].evidence.strainedGapMs == 3000 && starved[0].evidence.maxRttMs == 1500)
        #expect(starved[0].json.rendered().contains(#""strainedGapMs":3000"#))
        // The same RTT on time: the network.
        #expect(Self.strained(every: 1000, rtt: 1500).first?.cause == .ownNetwork)
        // Late reports that also lost packets: the network.
        #expect(Self.strained(every: 3000, rtt: 1500, loss: 12).first?.cause == .ownNetwork)
        // Gaps past a feed's silence (the app in the background) say nothing of the device.
        #expect(Self.strained(every: 7000, rtt: 1500).first?.evidence.strainedGapMs == nil)
    }

    @Test("a disconnect is its own cause, with the time away")
    func disconnect() {
        var bob = ClientBuilder("bob", defaults: .tiers)
        bob.join(0)
        bob.reports(from: 1000, to: 50_000, mos: 4.3)
        bob.disconnect(50_000, error: "ice_timeout")
        bob.reconnect(53_500)
        bob.reports(from: 54_000, to: 100_000, mos: 4.3)
        bob.leave(100_000)
        let incidents = Self.find([Self.calm("alice"), bob])
        #expect(incidents.count == 1)
        let i = incidents[0]
        #expect(i.uid == "bob" && i.cause == .disconnect && i.kinds == [.disconnect])
        #expect(i.startTs == 50_000 && i.endTs == 53_500)
        #expect(i.evidence.awayMs == 3500 && i.evidence.disconnectError == "ice_timeout")
        #expect(i.impactMs == 30_000)
    }

    @Test("a meeting_ended disconnect with no way back is no incident")
    func endingDisconnectIsNoIncident() {
        var bob = ClientBuilder("bob", defaults: .tiers)
        bob.join(0)
        bob.reports(from: 1000, to: 50_000, mos: 4.3)
        bob.event(50_000, .disconnect(reason: "meeting_ended", error: nil))
        #expect(Self.find([bob]).isEmpty)
    }

    @Test("the publisher's degraded uplink during a lone stall blames the publisher")
    func publisherUplink() {
        var bob = ClientBuilder("bob", defaults: .tiers)
        bob.join(0)
        for t in stride(from: Int64(1000), to: 120_000, by: 1000) {
            bob.report(t, mos: 4.3, loss: t >= 60_000 && t < 63_000 ? 12 : 0.5)
        }
        bob.leave(120_000)
        var alice = Self.calm("alice")
        Self.watch(&alice, "bob", "bob-cam")
        Self.stall(&alice, "bob", "bob-cam", 62_000, 66_000)
        let incidents = Self.find([alice, bob])
        let mine = incidents.first { $0.uid == "alice" }
        #expect(mine?.cause == .publisher)
        #expect(mine?.evidence.publishers == ["bob"] && mine?.evidence.publisherKinds == [.loss])
        #expect(incidents.first { $0.uid == "bob" }?.cause == .ownNetwork)
    }

    @Test("signals up to 10 s apart merge; further apart they are two incidents")
    func mergeGap() {
        var alice = Self.calm("alice")
        Self.watch(&alice, "bob", "bob-cam")
        Self.stall(&alice, "bob", "bob-cam", 20_000, 21_000)
        Self.stall(&alice, "bob", "bob-cam", 31_000, 32_000)  // 10 s after: same incident
        Self.stall(&alice, "bob", "bob-cam", 42_001, 43_000)  // 10.001 s after: a new one
        let incidents = Self.find([alice, Self.calm("bob")])
        #expect(incidents.map { [$0.startTs, $0.endTs] } == [[20_000, 32_000], [42_001, 43_000]])
        #expect(incidents[0].evidence.stallCount == 2)
        #expect(incidents.allSatisfy { $0.cause == .unknown })
    }

    @Test("a drop to poor or bad is a low-tier signal with its lowest tier")
    func lowTier() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        alice.reports(from: 0, to: 20_000, mos: 4.4)
        alice.reports(from: 20_000, to: 30_000, mos: 1.5)
        alice.reports(from: 30_000, to: 60_000, mos: 4.4)
        alice.leave(60_000)
        let log = meeting([alice])
        let incidents = IncidentFinder.find(log, MeetingAnalysis.analyze(log, config: directConfig()))
        #expect(incidents.count == 1)
        #expect(incidents[0].kinds == [.lowTier] && incidents[0].cause == .ownNetwork)
        #expect(incidents[0].startTs == 20_000 && incidents[0].endTs == 30_000)
        #expect(incidents[0].evidence.lowestTier == .bad && incidents[0].evidence.lowTierMs == 10_000)
    }

    @Test("participants rank by stalled + poor/bad time + 30 s per abnormal disconnect")
    func impactRanking() {
        var alice = Self.calm("alice"), carol = Self.calm("carol")
        Self.watch(&alice, "bob", "bob-cam")
        Self.stall(&alice, "bob", "bob-cam", 20_000, 25_000)
        var bob = ClientBuilder("bob", defaults: .tiers)
        bob.join(0)
        bob.disconnect(10_000, error: "timeout")
        bob.reconnect(11_000)
        bob.leave(120_000)
        Self.watch(&carol, "bob", "bob-cam")
        let ranked = ParticipantImpact.rank(MeetingAnalysis.analyze(meeting([alice, bob, carol]), config: TierConfig()))
        #expect(ranked.map(\.uid) == ["bob", "alice", "carol"])
        #expect(ranked[0].impactMs == 30_000 && ranked[1].impactMs == 5000)
        #expect(ranked[1].watchedMs == 120_000 - 1500 && ranked[1].stalledShare! > 0.04)
    }
}

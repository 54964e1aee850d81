import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
import MQATestSupport

/// The cause rules people act on, one hand-made meeting each: the viewer's
/// network measured against their own baseline, the viewer's device, the
/// sender freezing one tile alone, a network change as evidence.
@Suite("Incident causes")
struct IncidentCauseTests {
    typealias T = IncidentTests

    /// A viewer at RTT 69 ms whose RTT rises to 335 ms (under the fixed
    /// 400 ms line) around a stall: their own network, shown against their baseline.
    @Test func aRiseAgainstTheViewersOwnBaselineIsTheirNetwork() {
        var alice = ClientBuilder("alice", defaults: .tiers)
        alice.join(0)
        for t in stride(from: Int64(1000), to: 120_000, by: 1000) {
            alice.report(t, mos: 4.3, rtt: (38_000..<44_000).contains(t) ? 335 : 69)
        }
        alice.leave(120_000)
        T.watch(&alice, "bob", "bob-cam")
        T.stall(&alice, "bob", "bob-cam", 42_000, 45_000)
        let incidents = T.find([alice, T.calm("bob")])
        #expect(incidents.count == 1)
        let i = incidents[0]
        #expect(i.cause == .ownNetwork && i.kinds == [.stall], "a rise explains the stall; alone it makes no incident")
        #expect(i.evidence.maxRttMs == 335 && i.evidence.baselineRttMs == 69)
        // The same rise with no stall is no incident at all.
        var quiet = ClientBuilder("alice", defaults: .tiers)
        quiet.join(0)
        for t in stride(from: Int64(1000), to: 120_000, by: 1000) { quiet.report(t, mos: 4.3, rtt: (38_000..<44_000).contains(t) ? 335 : 69) }
        quiet.leave(120_000)
        #expect(T.find([quiet, T.calm("bob")]).isEmpty)
    }

    /// Two stalls 9 s apart merge into one incident; an RTT rise between
    /// them, more than 2 s from each, explains neither (rule 4 is of the
    /// stalls, not of the window). Next to one of them, it does.
    @Test func aRiseBetweenTwoStallsExplainsNeither() {
        func incident(riseFrom: Int64, to riseTo: Int64) -> Incident? {
            var alice = ClientBuilder("alice", defaults: .tiers)
            alice.join(0)
            for t in stride(from: Int64(1000), to: 120_000, by: 1000) {
                alice.report(t, mos: 4.3, rtt: (riseFrom..<riseTo).contains(t) ? 335 : 69)
            }
            alice.leave(120_000)
            T.watch(&alice, "bob", "bob-cam")
            T.stall(&alice, "bob", "bob-cam", 40_000, 41_000)
            T.stall(&alice, "bob", "bob-cam", 50_000, 51_000)
            let found = T.find([alice, T.calm("bob")])
            return found.count == 1 ? found[0] : nil
        }
        // Reports at 45 s (covering 45-46 s): 4 s from each stall.
        let between = incident(riseFrom: 45_000, to: 46_000)
        #expect(between != nil && between?.cause != .ownNetwork && between?.evidence.maxRttMs == nil, "\(String(describing: between))")
        // At 42 s (covering 42-43 s): within 2 s of the first stall's end.
        let near = incident(riseFrom: 42_000, to: 43_000)
        #expect(near?.cause == .ownNetwork && near?.evidence.maxRttMs == 335, "\(String(describing: near))")
    }

    /// One viewer stalls on three tracks at once with a clean network: the
    /// viewer's side (decoder or CPU), whatever the senders did.
    @Test func manyTracksAtOnceWithACleanNetworkIsTheViewersDevice() {
        var alice = T.calm("alice")
        for p in ["bob", "carol", "dave"] { T.watch(&alice, p, "\(p)-cam") }
        T.stall(&alice, "bob", "bob-cam", 50_000, 53_000)
        T.stall(&alice, "carol", "carol-cam", 50_400, 52_000)
        T.stall(&alice, "dave", "dave-cam", 51_200, 54_000)
        let incidents = T.find([alice, T.calm("bob"), T.calm("carol"), T.calm("dave")])
        #expect(incidents.count == 1)
        #expect(incidents[0].cause == .ownDevice && incidents[0].evidence.burstTracks == 3)
    }

    /// One tile froze while the viewer's other tile kept playing and both
    /// networks were clean: only the sender can freeze one tile alone. The
    /// evidence carries the publisher's own figures.
    @Test func oneTileFrozenAloneIsTheSendersSide() {
        var alice = T.calm("alice")
        T.watch(&alice, "bob", "bob-cam")
        T.watch(&alice, "carol", "carol-cam")
        T.stall(&alice, "bob", "bob-cam", 60_000, 64_000)
        let incidents = T.find([alice, T.calm("bob"), T.calm("carol")])
        #expect(incidents.count == 1)
        let i = incidents[0]
        #expect(i.cause == .publisher && i.evidence.publishers == ["bob"] && i.evidence.otherTracksPlaying == 1)
        #expect(i.evidence.publisherMaxRttMs != nil && i.evidence.publisherMaxLossPct != nil, "\(i.evidence)")
        // With nothing else watched there is nobody to compare with: unknown.
        var solo = T.calm("alice")
        T.watch(&solo, "bob", "bob-cam")
        T.stall(&solo, "bob", "bob-cam", 60_000, 64_000)
        #expect(T.find([solo, T.calm("bob")]).map(\.cause) == [.unknown])
    }

    /// One viewer's tile of Bob froze while two other viewers played Bob on,
    /// and her network was clean: the sender sent those frames, so the
    /// trouble is on her side, her device. Not the one-tile-alone rule,
    /// although her other tile kept playing too.
    @Test func aStallOthersWatchedThroughIsTheViewersDevice() {
        var alice = T.calm("alice"), carol = T.calm("carol"), dave = T.calm("dave")
        T.watch(&alice, "bob", "bob-cam")
        T.watch(&alice, "erin", "erin-cam")
        T.watch(&carol, "bob", "bob-cam")
        T.watch(&dave, "bob", "bob-cam")
        T.stall(&alice, "bob", "bob-cam", 70_000, 73_000)
        let incidents = T.find([alice, T.calm("bob"), carol, dave, T.calm("erin")])
        #expect(incidents.count == 1)
        let i = incidents[0]
        #expect(i.uid == "alice" && i.cause == .ownDevice && i.evidence.othersPlaying == 2, "\(i)")
        #expect(i.evidence.publishers.isEmpty && i.evidence.otherTracksPlaying == nil)
        // Carol had not yet seen a frame when Alice froze: she does not count.
        var late = T.calm("carol")
        late.subscribe(500, "bob", "bob-cam")
        late.status(71_000, "bob", "bob-cam", timedOut: false)
        let one = T.find([alice, T.calm("bob"), late, dave, T.calm("erin")])
        #expect(one.map(\.evidence.othersPlaying) == [1])
    }

    /// The same on the CDN engine, which has no quality feed to call the
    /// network clean: the viewer's link to the CDN.
    @Test func onTheCDNAStallOthersWatchedThroughIsTheViewersLink() {
        func viewer(_ uid: String) -> ClientBuilder {
            var c = ClientBuilder(uid, defaults: .tiers)
            c.join(0, engine: "cdn")
            c.leave(120_000)
            T.watch(&c, "bob", "bob-cam")
            return c
        }
        var alice = viewer("alice")
        T.stall(&alice, "bob", "bob-cam", 70_000, 73_000)
        var bob = ClientBuilder("bob", defaults: .tiers)
        bob.join(0, engine: "cdn")
        bob.leave(120_000)
        let incidents = T.find([alice, bob, viewer("carol")])
        #expect(incidents.map(\.cause) == [.ownNetwork])
        #expect(incidents.first?.evidence.othersPlaying == 1)
        // Alone, there is nothing to tell it by.
        var solo = viewer("alice")
        T.stall(&solo, "bob", "bob-cam", 70_000, 73_000)
        #expect(T.find([solo, bob]).map(\.cause) == [.unknown])
    }

    @Test func aNetworkChangeBeforeAStallIsEvidenceAndTheCause() {
        var alice = T.calm("alice")
        T.watch(&alice, "bob", "bob-cam")
        alice.context(30_000, .networkChange, ["netType": "cellular", "detail": "wifi→cellular"])
        T.stall(&alice, "bob", "bob-cam", 35_000, 38_000)
        let incidents = T.find([alice, T.calm("bob")])
        #expect(incidents.map(\.cause) == [.ownNetwork])
        #expect(incidents.first?.evidence.networkChange == "wifi→cellular")
    }

    /// Two of three watchers stalling together is not the sender: one rule
    /// (`SharedStalls`) says so for the track page and the incidents alike.
    @Test func sharedOnlyWhenEveryWatcherStalled() {
        var alice = T.calm("alice"), carol = T.calm("carol"), dave = T.calm("dave")
        T.watch(&alice, "bob", "bob-cam")
        T.watch(&carol, "bob", "bob-cam")
        T.watch(&dave, "bob", "bob-cam")
        T.stall(&alice, "bob", "bob-cam", 40_000, 44_000)
        T.stall(&carol, "bob", "bob-cam", 41_000, 44_000)
        let log = meeting([alice, T.calm("bob"), carol, dave])
        let analysis = MeetingAnalysis.analyze(log, config: TierConfig())
        let sharing = SharedStalls(analysis.subscriptions)
        let a = analysis.subscriptions.first { $0.subscriber == "alice" }!
        #expect(!sharing.isShared(a.stalls[0], of: a), "dave watched on")
        #expect(sharing.others(overlapping: a.stalls[0], of: a) == ["carol"])
        T.stall(&dave, "bob", "bob-cam", 40_500, 43_000)
        let all = MeetingAnalysis.analyze(meeting([alice, T.calm("bob"), carol, dave]), config: TierConfig())
        let a2 = all.subscriptions.first { $0.subscriber == "alice" }!
        #expect(SharedStalls(all.subscriptions).isShared(a2.stalls[0], of: a2))
    }

    /// The first names of a stall's others, counted (what a track page's
    /// Markdown shows), are the first of the whole list and its length.
    @Test func theFirstOthersAreThoseOfTheWholeList() {
        var rng = SplitMix64(seed: 71)
        var viewers: [ClientBuilder] = []
        for v in 0..<40 {
            var c = T.calm("v\(v)")
            T.watch(&c, "bob", "bob-cam")
            for s in 0..<3 where Int.random(in: 0..<3, using: &rng) > 0 {
                let at = Int64(20_000 + s * 30_000) + Int64.random(in: 0..<6000, using: &rng)
                T.stall(&c, "bob", "bob-cam", at, at + Int64.random(in: 500...5000, using: &rng))
            }
            viewers.append(c)
        }
        let analysis = MeetingAnalysis.analyze(meeting(viewers + [T.calm("bob")]), config: TierConfig())
        let sharing = SharedStalls(analysis.subscriptions)
        var named = 0
        for s in analysis.subscriptions {
            for x in s.stalls {
                let all = sharing.others(overlapping: x, of: s)
                for limit in [0, 1, 3, 10, 100] {
                    let first = sharing.others(overlapping: x, of: s, first: limit)
                    #expect(first.names == Array(all.prefix(limit)) && first.count == all.count)
                }
                named += all.count
            }
        }
        #expect(named > 200)
    }

    /// Only subscribers rendering the track at the stall's start, with a
    /// feed that was not silent, count for "at least one": a co-staller
    /// whose first frame came later, or whose app was in the background,
    /// does not make the stall the sender's.
    @Test func aCoStallerNotRenderingOrSilentDoesNotMakeItShared() {
        var alice = T.calm("alice")
        T.watch(&alice, "bob", "bob-cam")
        T.stall(&alice, "bob", "bob-cam", 40_000, 44_000)
        // Carol's first frame comes during Alice's stall.
        var carol = T.calm("carol")
        carol.subscribe(500, "bob", "bob-cam")
        carol.status(41_000, "bob", "bob-cam", timedOut: false)
        T.stall(&carol, "bob", "bob-cam", 42_000, 44_000)
        var late = MeetingAnalysis.analyze(meeting([alice, T.calm("bob"), carol]), config: TierConfig())
        var a = late.subscriptions.first { $0.subscriber == "alice" }!
        #expect(!SharedStalls(late).isShared(a.stalls[0], of: a), "carol was not rendering at 40 s")
        // Dana renders all along and stalls too, but her feed is silent then.
        var dana = ClientBuilder("dana", defaults: .tiers)
        dana.join(0)
        dana.reports(from: 1000, to: 30_000, mos: 4.3)
        dana.reports(from: 56_000, to: 120_000, mos: 4.3)
        dana.leave(120_000)
        T.watch(&dana, "bob", "bob-cam")
        T.stall(&dana, "bob", "bob-cam", 40_000, 44_000)
        late = MeetingAnalysis.analyze(meeting([alice, T.calm("bob"), dana]), config: TierConfig())
        a = late.subscriptions.first { $0.subscriber == "alice" }!
        #expect(!SharedStalls(late).isShared(a.stalls[0], of: a), "dana's feed was silent")
        // With a third watcher stalling with her, rendering and reporting: shared.
        var erin = T.calm("erin")
        T.watch(&erin, "bob", "bob-cam")
        T.stall(&erin, "bob", "bob-cam", 40_500, 43_000)
        late = MeetingAnalysis.analyze(meeting([alice, T.calm("bob"), dana, erin]), config: TierConfig())
        a = late.subscriptions.first { $0.subscriber == "alice" }!
        #expect(SharedStalls(late).isShared(a.stalls[0], of: a))
    }
}

import Testing
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// Whose long round trip it is on a mesh call (Docs/incidents.md, "Mesh
/// calls: whose loss"): bob's quality feed follows his connection with
/// carol, whose device answered late from 40 to 50 s (RTT 900 ms); what
/// each connection measured tells carol's side from bob's network.
@Suite("Mesh RTT")
struct MeshRttTests {
    /// bob, with RTT 900 ms from 40 to 50 s in his reports and nothing else.
    static func bob() -> ClientBuilder {
        var c = ClientBuilder("bob", defaults: .tiers)
        c.join(0, engine: "p2p")
        c.reports(from: 1000, to: 40_000, mos: 4.3, rtt: 50)
        c.reports(from: 40_000, to: 50_000, mos: 4.3, rtt: 900)
        c.reports(from: 50_000, to: 120_000, mos: 4.3, rtt: 50)
        c.leave(120_000)
        return c
    }

    /// A connection with `peer` over the call, slow from 40 to 50 s when `slow`.
    static func link(_ peer: String, slow: Bool, peak: Double = 900) -> ReceivedLoss {
        ReceivedLoss(peers: [peer], spans: [.init(start: 1000, end: 120_000)],
                     rttRuns: slow ? [.init(start: 39_000, end: 50_000, peak: peak)] : [])
    }

    static func incident(_ received: [String: [ReceivedLoss]]) -> Incident? {
        var log = meeting([bob(), MeshLossTests.calm("alice"), MeshLossTests.calm("carol")])
        log.received = received
        return IncidentFinder.find(log, MeetingAnalysis.analyze(log, config: TierConfig())).first { $0.uid == "bob" }
    }

    @Test("slow only with carol, as alice's connection with her was: carol's side")
    func theSendersSide() throws {
        let i = try #require(Self.incident([
            "bob": [Self.link("alice", slow: false), Self.link("carol", slow: true)],
            "alice": [Self.link("bob", slow: false), Self.link("carol", slow: true, peak: 1200)],
        ]))
        #expect(i.cause == .publisher && i.evidence.publishers == ["carol"] && i.kinds == [.rtt])
        #expect(i.evidence.cleanConnections == 1 && i.evidence.alsoSlow == ["alice"] && i.evidence.alsoSlowMaxRttMs == 1200)
        #expect(i.evidence.alsoLossy.isEmpty && i.evidence.alsoLossyMaxPct == nil)
        let json = "\(i.evidence.json)"
        #expect(json.contains("alsoSlow") && !json.contains("alsoLossy"))
    }

    @Test("carol's own connection with alice corroborates it: a round trip is both ends'")
    func theSendersOwnConnection() throws {
        let i = try #require(Self.incident([
            "bob": [Self.link("alice", slow: false), Self.link("carol", slow: true)],
            "carol": [Self.link("alice", slow: true, peak: 1500), Self.link("bob", slow: true)],
        ]))
        #expect(i.cause == .publisher && i.evidence.alsoSlow == ["alice"] && i.evidence.alsoSlowMaxRttMs == 1500)
    }

    @Test("what keeps the RTT bob's own network")
    func ownNetwork() throws {
        #expect(try #require(Self.incident([:])).cause == .ownNetwork)
        // Only bob's view: his own uplink can slow one connection (as for loss).
        #expect(try #require(Self.incident(["bob": [Self.link("alice", slow: false), Self.link("carol", slow: true)]])).cause == .ownNetwork)
        // Both his connections slow: his network.
        #expect(try #require(Self.incident(["bob": [Self.link("alice", slow: true), Self.link("carol", slow: true)],
                                            "alice": [Self.link("carol", slow: true)]])).cause == .ownNetwork)
        // alice's link with carol was quick, seen from either end: the path to bob.
        for clean in [["alice": [Self.link("carol", slow: false)]], ["carol": [Self.link("alice", slow: false)]]] {
            #expect(try #require(Self.incident(clean.merging(["bob": [Self.link("alice", slow: false), Self.link("carol", slow: true)]]) { a, _ in a }))
                .cause == .ownNetwork)
        }
        // A bridge's connection that carried carol among others: its round
        // trip is to the bridge.
        var bridge = Self.link("carol", slow: true)
        bridge.peers = ["carol", "dave"]
        #expect(try #require(Self.incident(["bob": [Self.link("alice", slow: false), Self.link("carol", slow: true)],
                                            "alice": [bridge]])).cause == .ownNetwork)
        // Loss runs say nothing of a round trip.
        var lossy = Self.link("carol", slow: false)
        lossy.lossRuns = [.init(start: 39_000, end: 50_000, peak: 20)]
        #expect(try #require(Self.incident(["bob": [Self.link("alice", slow: false), lossy],
                                            "alice": [Self.link("carol", slow: true)]])).cause == .ownNetwork)
    }
}

extension MeshRttTests {
    /// bob and alice reach each other over their office network (host
    /// candidates) and carol through NAT: a network they share (its uplink
    /// bloated) reads like carol's side, so neither loss nor RTT is put on
    /// her. Where every path is a host's (a lab, or all on one LAN), it
    /// tells nothing and the rule reads as before.
    @Test("a peer on the viewer's own network clears nothing")
    func sharedNetwork() throws {
        func link(_ peer: String, slow: Bool, lossy: Bool = false, _ paths: [String]) -> ReceivedLoss {
            var l = Self.link(peer, slow: slow)
            if lossy { l.lossRuns = [.init(start: 39_000, end: 50_000, peak: 20)] }
            l.paths = paths
            return l
        }
        let office = ["host/udp"], nat = ["srflx/udp"]
        #expect(try #require(Self.incident([
            "bob": [link("alice", slow: false, office), link("carol", slow: true, nat)],
            "alice": [link("carol", slow: true, nat)],
        ])).cause == .ownNetwork)
        // The same on a path that changed to a relay later.
        #expect(try #require(Self.incident([
            "bob": [link("alice", slow: false, office), link("carol", slow: true, ["host/udp", "relay/tls"])],
            "alice": [link("carol", slow: true, nat)],
        ])).cause == .ownNetwork)
        // All through NAT, or all host: carol's side.
        for (a, c) in [(nat, nat), (office, office), ([], nat)] {
            #expect(try #require(Self.incident([
                "bob": [link("alice", slow: false, a), link("carol", slow: true, c)],
                "alice": [link("carol", slow: true, c)],
            ])).cause == .publisher, "\(a) \(c)")
        }
        // Loss the same way (bob's incident is RTT here, so through MeshLoss).
        let mesh = MeshLoss(received: [
            "bob": [link("alice", slow: false, office), link("carol", slow: false, lossy: true, nat)],
            "alice": [link("carol", slow: false, lossy: true, nat)],
        ])
        #expect(mesh.sender(of: "bob", 40_000, 50_000, stalledPublishers: [], .loss) == nil)
        let lab = MeshLoss(received: [
            "bob": [link("alice", slow: false, office), link("carol", slow: false, lossy: true, office)],
            "alice": [link("carol", slow: false, lossy: true, office)],
        ])
        #expect(lab.sender(of: "bob", 40_000, 50_000, stalledPublishers: [], .loss)?.sender == "carol")
    }
}

/// RTT runs as the converter notes them and as a line keeps them.
@Suite struct RttRunsImportTests {
    /// One connection, RTT 50 ms but 700 ms and 900 ms in the samples of 4 and 5 s.
    static func dump() -> [String] {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 100)]
        for (i, at) in stride(from: 1000, through: 8000, by: 1000).enumerated() {
            let n = i + 1, rtt = at == 4000 ? 0.7 : at == 5000 ? 0.9 : 0.05
            lines.append(RTC.stats("PC_0", Int64(at), [
                RTC.audioIn(50 * n), RTC.video("V0", track: "bob-cam", packets: 50 * n, frames: 25 * n),
                ("CP", "\"type\":\"candidate-pair\",\"selected\":true,\"localCandidateId\":\"LC\",\"currentRoundTripTime\":\(rtt)"),
                ("LC", "\"type\":\"local-candidate\",\"candidateType\":\"srflx\",\"protocol\":\"udp\""),
            ]))
        }
        return lines
    }

    @Test func theConverterKeepsSlowRuns() throws {
        let received = try #require(try RTC.convert(Self.dump()).contexts.first?.received)
        // Over the two samples' intervals: from the sample at 3 s to 5 s.
        #expect(received.rttRuns == [ReceivedLoss.Run(start: t0 + 3000, end: t0 + 5000, peak: 900)])
        #expect(received.lossRuns.isEmpty && received.paths == ["srflx/udp"])
    }

    @Test func aLineKeepsThemAndHoldsThemToTheImporter() throws {
        let scratch = Scratch()
        let store = try EventStore(path: scratch.db)
        _ = try Ingester(store: store).ingest(paths: [scratch.write("ann.log", Self.dump())])
        // Read back with the connection's paths, from its context.
        #expect(try #require(try store.meetingLog("rtc-Standup")).received["Ann"]?.map(\.paths) == [["srflx/udp"]])
        let export = try exportText(store)
        let run = "[\(t0 + 3000),\(t0 + 5000),900]"
        #expect(export.contains("\"lossRuns\":[],\"rttRuns\":[\(run)]}"))
        let copy = try EventStore(path: scratch.dir + "/copy.sqlite")
        _ = try Ingester(store: copy).ingest(paths: [scratch.write("export.ndjson", [String(export.dropLast())])])
        #expect(try exportText(copy) == export)
        #expect(try #require(try copy.meetingLog("rtc-Standup")).received == (try #require(try store.meetingLog("rtc-Standup"))).received)

        let told = "rttRuns[0]: must be [start ms, end ms, peak ms] with start ≤ end, more than 5 s after the run before, inside the spans, and a peak of whole ms above 400 and under 10^15"
        for (to, reason) in [
            ("[\(t0 + 3000),\(t0 + 5000),400]", told),
            ("[\(t0 + 3000),\(t0 + 5000),900.5]", told),
            ("[\(t0 + 3000),\(t0 + 99_000),900]", told),
            ("7", told),
        ] {
            let lines = export.split(separator: "\n").map(String.init)
            let bad = lines.map { $0.replacingOccurrences(of: run, with: to) }
            #expect(bad != lines)
            let reasons = try rejectReasons(bad, in: scratch, name: "bad-\(to.count).ndjson")
            #expect(reasons == ["mqa_connection_context: received." + reason], "\(reasons)")
        }
        let notAnArray = export.split(separator: "\n").map { $0.replacingOccurrences(of: "\"rttRuns\":[\(run)]", with: "\"rttRuns\":{}") }
        #expect(try rejectReasons(notAnArray, in: scratch, name: "bad-object.ndjson") == ["mqa_connection_context: received.rttRuns: must be an array"])
    }
}

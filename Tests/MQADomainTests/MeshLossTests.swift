import Testing
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// Whose loss it is on a mesh call (Docs/incidents.md, "Mesh calls: whose
/// loss"): bob's quality feed follows his connection from carol, whose
/// uplink lost packets from 40 to 50 s; what each connection received
/// tells carol's uplink from bob's own network.
@Suite("Mesh loss")
struct MeshLossTests {
    /// bob, with a loss spike (20 %) from 40 to 50 s in his reports.
    static func bob() -> ClientBuilder {
        var c = ClientBuilder("bob", defaults: .tiers)
        c.join(0, engine: "p2p")
        c.reports(from: 1000, to: 40_000, mos: 4.3)
        c.reports(from: 40_000, to: 50_000, mos: 3.0, loss: 20)
        c.reports(from: 50_000, to: 120_000, mos: 4.3)
        c.leave(120_000)
        return c
    }

    static func calm(_ uid: String) -> ClientBuilder {
        var c = ClientBuilder(uid, defaults: .tiers)
        c.join(0, engine: "p2p")
        c.reports(from: 1000, to: 120_000, mos: 4.3)
        c.leave(120_000)
        return c
    }

    /// A connection from `peer` over the call, lossy from 40 to 50 s when `lossy`.
    static func link(_ peer: String, lossy: Bool, peak: Double = 22) -> ReceivedLoss {
        ReceivedLoss(peers: [peer], spans: [.init(start: 1000, end: 120_000)],
                     lossRuns: lossy ? [.init(start: 39_000, end: 50_000, peak: peak)] : [])
    }

    /// bob's incident, with what each connection received.
    static func incident(_ received: [String: [ReceivedLoss]], stalls: Bool = false) -> Incident? {
        var bob = bob()
        if stalls {
            bob.subscribe(500, "alice", "cam")
            bob.status(1500, "alice", "cam", timedOut: false)
            bob.status(42_000, "alice", "cam", timedOut: true)
            bob.status(45_000, "alice", "cam", timedOut: false)
        }
        var log = meeting([bob, calm("alice"), calm("carol")])
        log.received = received
        return IncidentFinder.find(log, MeetingAnalysis.analyze(log, config: TierConfig())).first { $0.uid == "bob" }
    }

    @Test("loss only from carol, as alice received her too: carol's uplink")
    func theSendersUplink() throws {
        let i = try #require(Self.incident([
            "bob": [Self.link("alice", lossy: false), Self.link("carol", lossy: true)],
            "alice": [Self.link("bob", lossy: false), Self.link("carol", lossy: true, peak: 18.5)],
            "carol": [Self.link("alice", lossy: false), Self.link("bob", lossy: false)],
        ]))
        #expect(i.cause == .publisher && i.evidence.publishers == ["carol"])
        #expect(i.evidence.cleanConnections == 1 && i.evidence.alsoLossy == ["alice"] && i.evidence.alsoLossyMaxPct == 18.5)
        #expect(i.evidence.maxLossPct == 20 && i.kinds.contains(.loss))
    }

    @Test("without another viewer who lost carol's packets too, the clean connection does not tell")
    func theViewersOtherConnectionAloneIsNotEnough() throws {
        // A viewer's own uplink trouble can make its connection from one
        // peer lossy while the other stays clean (recorded: two viewers'
        // dumps of a three-person call read each other as the sender).
        let i = try #require(Self.incident(["bob": [Self.link("alice", lossy: false), Self.link("carol", lossy: true)]]))
        #expect(i.cause == .ownNetwork && i.evidence.cleanConnections == nil)
        // carol's own dump, with clean connections, adds no other viewer.
        let j = try #require(Self.incident([
            "bob": [Self.link("alice", lossy: false), Self.link("carol", lossy: true)],
            "carol": [Self.link("alice", lossy: false), Self.link("bob", lossy: false)],
        ]))
        #expect(j.cause == .ownNetwork)
    }

    @Test("what keeps the loss bob's own network")
    func ownNetwork() throws {
        // Without the evidence, as before.
        #expect(try #require(Self.incident([:])).cause == .ownNetwork)
        // Both his connections lost packets: his downlink.
        #expect(try #require(Self.incident(["bob": [Self.link("alice", lossy: true), Self.link("carol", lossy: true)]])).cause == .ownNetwork)
        // One connection (an SFU's, or a two-person call): nothing to compare.
        #expect(try #require(Self.incident(["bob": [Self.link("carol", lossy: true)]])).cause == .ownNetwork)
        // alice received carol cleanly: not carol's uplink, the path to bob.
        #expect(try #require(Self.incident([
            "bob": [Self.link("alice", lossy: false), Self.link("carol", lossy: true)],
            "alice": [Self.link("carol", lossy: false)],
        ])).cause == .ownNetwork)
        // The lossy connection carried two senders: which one is not known.
        var both = Self.link("carol", lossy: true)
        both.peers = ["carol", "dave"]
        #expect(try #require(Self.incident(["bob": [Self.link("alice", lossy: false), both],
                                            "alice": [Self.link("carol", lossy: true)]])).cause == .ownNetwork)
        // The clean connection received nothing over the loss (ended, or a
        // gap: an idle bridge connection while P2P carries the call).
        let alsoLossy = ["alice": [Self.link("carol", lossy: true, peak: 18.5)]]
        for spans in [[ReceivedLoss.Span(start: 1000, end: 20_000)],
                      [.init(start: 1000, end: 30_000), .init(start: 60_000, end: 120_000)]] {
            var idle = Self.link("dave", lossy: false)
            idle.spans = spans
            #expect(try #require(Self.incident(alsoLossy.merging(["bob": [idle, Self.link("carol", lossy: true)]]) { a, _ in a }))
                .cause == .ownNetwork)
        }
        // A stall of alice's video in the incident: more than carol's loss.
        #expect(try #require(Self.incident(["bob": [Self.link("alice", lossy: false), Self.link("carol", lossy: true)],
                                            "alice": [Self.link("carol", lossy: true)]],
                                           stalls: true)).cause == .ownNetwork)
    }

    @Test("a connection's peers are read as participants with the meeting's names")
    func peersAreResolved() {
        var log = meeting([Self.bob(), Self.calm("carol")])
        log.received = ["bob": [ReceivedLoss(peers: ["stream-c", "bob-own"], spans: [.init(start: 0, end: 1)])]]
        let resolved = log.resolvingSenders(publishers: ["stream-c": "carol", "bob-own": "bob"])
        // A name of the receiver itself (a loopback test) stays as it was.
        #expect(resolved.received["bob"]?.first?.peers == ["bob-own", "carol"])
    }
}

/// What each imported connection received and lost (`ReceivedLoss`), as
/// the converter notes it and as a store keeps and exports it.
@Suite struct ReceivedLossImportTests {
    /// Ann's two mesh connections: PC_1 (from the publisher of `cat-cam`)
    /// loses 10 of every 100 packets in the samples of 4, 5 and 6 s.
    static func dump() -> [String] {
        var lines = RTC.header() + [RTC.state("PC_0", "connected", 100), RTC.state("PC_1", "connected", 100)]
        for (i, at) in stride(from: 1000, through: 8000, by: 1000).enumerated() {
            let n = i + 1, lost = max(0, min(n, 6) - 3) * 10
            lines.append(RTC.stats("PC_0", Int64(at), [RTC.audioIn(50 * n), RTC.video("V0", track: "bob-cam", packets: 50 * n, frames: 25 * n)]))
            lines.append(RTC.stats("PC_1", Int64(at), [RTC.audioIn(50 * n - lost, lost: lost),
                                                       RTC.video("V1", track: "cat-cam", packets: 50 * n, frames: 25 * n)]))
        }
        return lines
    }

    @Test func eachConnectionKeepsItsLossRuns() throws {
        let c = try RTC.convert(Self.dump())
        let received = Dictionary(uniqueKeysWithValues: c.contexts.map { ($0.connection, $0.received) })
        #expect(received["PC_0"] == ReceivedLoss(peers: [received["PC_0"]??.peers.first ?? ""], spans: [.init(start: t0 + 1000, end: t0 + 8000)]))
        let lossy = try #require(received["PC_1"] ?? nil)
        // 10 lost of 100 expected in each of the three samples: one run
        // over their intervals, 3 s to 6 s.
        #expect(lossy.lossRuns == [ReceivedLoss.Run(start: t0 + 3000, end: t0 + 6000, peak: 10)])
        #expect(lossy.peers.count == 1 && lossy.peers != received["PC_0"]??.peers)
    }

    @Test func theStoreKeepsAndExportsIt() throws {
        let scratch = Scratch()
        let store = try EventStore(path: scratch.db)
        _ = try Ingester(store: store).ingest(paths: [scratch.write("ann.log", Self.dump())])
        let log = try #require(try store.meetingLog("rtc-Standup"))
        let runs = try #require(log.received["Ann"]).map(\.lossRuns)
        #expect(runs == [[], [ReceivedLoss.Run(start: t0 + 3000, end: t0 + 6000, peak: 10)]])

        let export = try exportText(store)
        #expect(export.contains(#""lossRuns":[[\#(t0 + 3000),\#(t0 + 6000),10]]"#))
        let copy = try EventStore(path: scratch.dir + "/copy.sqlite")
        _ = try Ingester(store: copy).ingest(paths: [scratch.write("export.ndjson", [String(export.dropLast())])])
        #expect(try exportText(copy) == export)
        #expect(try #require(try copy.meetingLog("rtc-Standup")).received == log.received)

        // Held to what the importer writes, naming the member.
        let run = "[\(t0 + 3000),\(t0 + 6000),10]"
        for (from, to, told) in [
            (run, "[\(t0 + 3000),\(t0 + 6000),101]", "lossRuns[0]: must be [start ms, end ms, peak %] with start ≤ end, more than 5 s after the run before, inside the spans, and a peak above 5 and at most 100"),
            (run, "[\(t0 + 3000),\(t0 + 6000),4]", "lossRuns[0]: must be [start ms, end ms, peak %] with start ≤ end, more than 5 s after the run before, inside the spans, and a peak above 5 and at most 100"),
            (run, "[\(t0 + 3000),\(t0 + 6000),10],[\(t0 + 2000),\(t0 + 2500),9]", "lossRuns[1]: must be [start ms, end ms, peak %] with start ≤ end, more than 5 s after the run before, inside the spans, and a peak above 5 and at most 100"),
            ("\"spans\":[[\(t0 + 1000),", "\"spans\":[[-5,", "spans[0]: must be [start ms, end ms] with start ≤ end, more than 5 s after the span before, from 2000 to 9999"),
            // Runs and spans the importer would have made one.
            (run, "[\(t0 + 3000),\(t0 + 4000),10],[\(t0 + 8000),\(t0 + 8000),9]", "lossRuns[1]: must be [start ms, end ms, peak %] with start ≤ end, more than 5 s after the run before, inside the spans, and a peak above 5 and at most 100"),
            ("\"spans\":[[\(t0 + 1000),\(t0 + 8000)]]", "\"spans\":[[\(t0 + 1000),\(t0 + 4000)],[\(t0 + 9000),\(t0 + 10_000)]]", "spans[1]: must be [start ms, end ms] with start ≤ end, more than 5 s after the span before, from 2000 to 9999"),
            ("\"peers\":[", "\"RTTRuns\":[],\"peers\":[", ": unknown key \"RTTRuns\" (peers, spans, lossRuns, rttRuns)"),
            ("\"peers\":[", "\"peers\":[\"x\",\"x\",", "peers: must be an array of distinct names of 1 to 256 characters"),
        ] {
            let lines = export.split(separator: "\n").map(String.init)
            let bad = lines.map { $0.contains("lossRuns\":[[") ? $0.replacingOccurrences(of: from, with: to) : $0 }
            #expect(bad != lines)
            let reasons = try rejectReasons(bad, in: scratch, name: "bad-\(told.prefix(8)).ndjson")
            #expect(reasons == ["mqa_connection_context: received" + (told.hasPrefix(":") ? "" : ".") + told], "\(reasons)")
        }
    }
}

extension ReceivedLossImportTests {
    /// Spans end where samples received nothing for more than 5 s (a
    /// shorter gap is bridged), and a loss run begins at the received
    /// sample before it, never at one that received nothing.
    @Test func spansAndRunsFollowTheReceivedSamples() throws {
        func received(_ counts: [(Int, Int, Int)]) throws -> ReceivedLoss {
            var lines = RTC.header() + [RTC.state("PC_0", "connected", 100)]
            for (at, received, lost) in counts {
                lines.append(RTC.stats("PC_0", Int64(at), [RTC.audioIn(received, lost: lost)]))
            }
            return try #require(try RTC.convert(lines).contexts.first?.received)
        }
        // Packets at 1 and 2 s, none from 3 to 9 s, then at 10 and 11 s with
        // 20 of 100 lost at 10 s.
        let quiet = (3...9).map { ($0 * 1000, 100, 0) }
        let long = try received([(1000, 50, 0), (2000, 100, 0)] + quiet + [(10_000, 180, 20), (11_000, 230, 20)])
        #expect(long.spans == [.init(start: t0 + 1000, end: t0 + 2000), .init(start: t0 + 10_000, end: t0 + 11_000)])
        #expect(long.lossRuns == [ReceivedLoss.Run(start: t0 + 10_000, end: t0 + 10_000, peak: 20)])
        // One quiet sample, and lossy samples 3 s apart: one span, one run.
        let short = try received([(1000, 50, 0), (2000, 90, 10), (3000, 90, 10), (4000, 140, 10), (5000, 170, 30)])
        #expect(short.spans == [.init(start: t0 + 1000, end: t0 + 5000)])
        #expect(short.lossRuns == [ReceivedLoss.Run(start: t0 + 1000, end: t0 + 5000, peak: 40)])
    }
}

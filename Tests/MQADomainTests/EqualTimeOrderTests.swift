import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// tiers.md: "A client's events are taken in `ts` order; equal `ts` keep
/// input order." Reports and events are stored apart; each event's place
/// among its millisecond's reports (`TimedEvent.reportsBefore`) carries
/// that order through the store.
@Suite struct EqualTimeOrderTests {
    private func event(_ ts: Int64, _ name: String, uid: String = "alice", extra: String = "") -> String {
        #"{"ts":\#(ts),"event":"\#(name)","meeting":"m-1","uid":"\#(uid)"\#(extra)}"#
    }

    /// A join, reports every 2 s, then `tail` (lines at t0 + 20 s and later).
    private func log(_ tail: [String]) -> [String] {
        [event(t0, "meeting_join", extra: #","engine":"sfu""#)] + (1..<10).map { qr(t0 + 2000 * Int64($0)) } + tail
    }

    private func ingest(_ lines: [String], prefix: [String] = []) throws -> (EventStore, Scratch) {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        let summary = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", prefix + lines)])
        #expect(summary.rejected == 0)
        return (store, s)
    }

    private func connections(_ store: EventStore) throws -> [ConnectionAnalysis] {
        let log = try #require(try store.meetingLog("m-1"))
        return MeetingAnalysis.analyze(log, config: TierConfig()).connections.filter { $0.uid == "alice" }
    }

    @Test("a report logged after a disconnect of its millisecond belongs to no connection; before it, to the one that ends")
    func reportAndDisconnect() throws {
        let t = t0 + 20_000
        let (after, s1) = try ingest(log([event(t, "disconnect", extra: #","reason":"network""#), qr(t, mos: "1.2")]))
        let (before, s2) = try ingest(log([qr(t, mos: "1.2"), event(t, "disconnect", extra: #","reason":"network""#)]))
        _ = (s1, s2)
        let a = try connections(after), b = try connections(before)
        #expect(a.map(\.warmReports) == [8])
        #expect(b.map(\.warmReports) == [9])
        #expect(a.map(\.end) == [t] && b.map(\.end) == [t])
    }

    @Test("a report logged before a reconnect of its millisecond is outside the new connection; after it, its first (cold) report")
    func reportAndReconnect() throws {
        let t = t0 + 30_000
        let gap = [event(t0 + 20_000, "disconnect", extra: #","reason":"network""#)]
        let (before, s1) = try ingest(log(gap + [qr(t), event(t, "reconnect"), qr(t + 6000)]))
        let (after, s2) = try ingest(log(gap + [event(t, "reconnect"), qr(t), qr(t + 6000)]))
        _ = (s1, s2)
        let b = try connections(before), a = try connections(after)
        #expect(b.map(\.coldReports) == [1, 0] && b.map(\.warmReports) == [8, 1])
        #expect(a.map(\.coldReports) == [1, 1] && a.map(\.warmReports) == [8, 1])
    }

    @Test("export writes a millisecond's reports and events in the order they were logged", arguments: [false, true])
    func exportKeepsInputOrder(manyBatches: Bool) throws {
        let t = t0 + 20_000
        let tail = [
            qr(t, mos: "4.1"), event(t, "connection_quality_change", extra: #","tier":"good""#), qr(t, mos: "4.2"),
            event(t, "disconnect", extra: #","reason":"network""#), qr(t, mos: "4.3"),
            event(t + 100, "reconnect"), qr(t + 100, mos: "4.4"), event(t + 100, "meeting_leave"),
        ]
        // Another client's 9,000 reports first make the input more than one
        // batch: alice's lines are then buffered and stored by the writer.
        let prefix = manyBatches ? (0..<9000).map { qr(t0 + Int64($0), uid: "bob") } : []
        let (store, s) = try ingest(log(tail), prefix: prefix)
        _ = s
        let alice = try exportText(store).split(separator: "\n").filter { $0.contains(#""uid":"alice""#) }
        #expect(alice.suffix(tail.count).map(String.init) == tail)
    }

    /// A log whose milliseconds mix reports and events in every order.
    private var tiedLog: [String] {
        let t = t0 + 20_000, u = t0 + 26_000
        return log([
            event(t, "connection_quality_change", extra: #","tier":"good""#), qr(t, mos: "4.1"),
            event(t, "active_speakers_change", extra: #","speakers":["alice"]"#), qr(t, mos: "4.1"), qr(t, mos: "4.2"),
            event(t, "disconnect", extra: #","reason":"network""#), qr(t, mos: "4.3"),
            qr(u, mos: "3.1"), event(u, "reconnect"), qr(u, mos: "3.2"),
            event(u, "connection_quality_change", extra: #","tier":"poor""#),
            qr(u + 8000, mos: "2.9"), event(u + 8000, "meeting_leave"), qr(u + 8000, mos: "2.8"),
        ])
    }

    @Test("a log cut anywhere, into files of one ingest or of two, stores what the whole log does",
          arguments: [false, true])
    func cutAnywhere(twoRuns: Bool) throws {
        let lines = tiedLog
        let (whole, w) = try ingest(lines)
        _ = w
        let expected = try exportText(whole)
        for cut in 1..<lines.count {
            let s = Scratch()
            let store = try EventStore(path: s.db)
            let a = s.write("a.ndjson", Array(lines[..<cut])), b = s.write("b.ndjson", Array(lines[cut...]))
            if twoRuns {
                _ = try Ingester(store: store).ingest(paths: [a])
                _ = try Ingester(store: store).ingest(paths: [b])
            } else {
                _ = try Ingester(store: store).ingest(paths: [a, b])
            }
            #expect(try exportText(store) == expected, "cut before line \(cut + 1)")
        }
    }

    @Test("a repeated report, dropped, does not count in the place of the events after it")
    func repeatsDoNotCount() throws {
        let t = t0 + 20_000
        let disconnect = event(t, "disconnect", extra: #","reason":"network""#)
        let (store, s) = try ingest(log([qr(t, mos: "4.1"), qr(t, mos: "4.1"), disconnect, qr(t, mos: "1.2")]))
        _ = s
        let alice = try exportText(store).split(separator: "\n").map(String.init).filter { $0.contains(#""uid":"alice""#) }
        #expect(alice.suffix(3) == [qr(t, mos: "4.1"), disconnect, qr(t, mos: "1.2")])
        #expect(try connections(store).map(\.warmReports) == [9])
    }

    @Test("a log ingested again after it grew keeps its order: what was stored counts once")
    func grownLog() throws {
        let t = t0 + 20_000
        let disconnect = event(t, "disconnect", extra: #","reason":"network""#)
        let first = log([qr(t, mos: "4.1")]), grown = first + [disconnect, qr(t, mos: "1.2")]
        let s = Scratch()
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", first)])
        let again = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", grown)])
        #expect(again.duplicates == first.count)
        let alice = try exportText(store).split(separator: "\n").map(String.init).filter { $0.contains(#""uid":"alice""#) }
        #expect(alice == grown)
    }

    @Test("a place survives the chunk codec; a block of unknown places encodes as before")
    func placesRoundTrip() throws {
        var codec = ChunkCodec()
        let block = EventBlock(ts: [5, 5, 5, 9], kinds: [3, 3, 4, 3], payloads: [[], [1], [2], [3]],
                               reportsBefore: [0, TimedEvent.byKind, 2, TimedEvent.byKind])
        let decoded = try codec.decodeEvents(try codec.encode(block))
        #expect(decoded == block)
        #expect(decoded.reportsBefore == [0, TimedEvent.byKind, 2, TimedEvent.byKind])
        let plain = EventBlock(ts: [5, 5, 5, 9], kinds: [3, 3, 4, 3], payloads: [[], [1], [2], [3]])
        let placedBlob = try codec.encode(block), plainBlob = try codec.encode(plain)
        #expect(placedBlob != plainBlob)
        #expect(try codec.decodeEvents(plainBlob).reportsBefore == [UInt32](repeating: TimedEvent.byKind, count: 4))
    }

    @Test("the builder places events as the store does")
    func builderPlaces() {
        var b = ClientBuilder("a", defaults: .init())
        b.join(0)
        b.report(2000, mos: 4.3)
        b.disconnect(6000)
        b.report(6000, mos: 4.3)
        b.reconnect(9000)
        b.report(9000, mos: 4.3)
        let client = b.build()
        #expect(client.events.map(\.reportsBefore) == [0, 0, 0])
        #expect(client.connectionSpans().map(\.reports) == [0..<1, 2..<3])
    }
}

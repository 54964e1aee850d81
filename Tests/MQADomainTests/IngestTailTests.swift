import Foundation
import Testing
@testable import MQABase
@testable import MQAStore
@testable import MQAIngest

/// A log that arrives in pieces, files of one client after another, is
/// stored as if it had come whole: the writer fills each client's short
/// tail when another client's items come (`EventStore.compactTails`),
/// from the items it kept (`TailItems`) or from the stored chunks.
@Suite struct IngestTailTests {
    static func lines(_ uid: String, reports: Int) -> [String] {
        var out: [String] = []
        for i in 0..<reports {
            let ts = t0 + Int64(i) * 1000 + (uid == "bob" ? 500 : 0)
            out.append(qr(ts, uid: uid, loss: "\(i % 7).\(i % 3)", mos: "4.\(10 + i % 80)"))
            if i % 9 == 0 {
                out.append(#"{"ts":\#(ts),"event":"active_speakers_change","meeting":"m-1","uid":"\#(uid)","speakers":["u\#(i % 5)"]}"#)
            }
        }
        return out
    }

    /// Every chunk row as (uid, table, count, first, last, blob), in order.
    static func chunks(_ db: String) throws -> [String] {
        let store = try EventStore(path: db)
        var out: [String] = []
        for table in ["report_chunks", "event_chunks"] {
            let rows = try store.db.prepare("""
                SELECT c.uid, t.count, t.first_ts, t.last_ts, hex(t.data) FROM \(table) t JOIN clients c ON c.id = t.client_id
                ORDER BY c.uid, t.first_ts, t.id
                """)
            while try rows.step() {
                out.append("\(table) \(rows.string(0) ?? "") \(rows.int(1)) \(rows.int64(2)) \(rows.int64(3)) \(rows.string(4) ?? "")")
            }
        }
        return out
    }

    @Test("pieces, another client between them and a piece sent twice: the chunks of one whole file each")
    func piecesAreStoredAsOneFile() throws {
        let alice = Self.lines("alice", reports: 9000), bob = Self.lines("bob", reports: 3000)
        let whole = Scratch()
        let a = whole.write("alice.ndjson", alice), b = whole.write("bob.ndjson", bob)
        _ = try Ingester(store: try EventStore(path: whole.db)).ingest(paths: [a, b])

        let cut = Scratch()
        var paths: [String] = []
        var at = 0
        // Sizes around the chunk capacity (2048) and far under it.
        for (k, n) in [1, 37, 500, 2047, 2049, 3, 800, 1, 4000].enumerated() {
            let end = min(at + n, alice.count)
            paths.append(cut.write("alice-\(k).ndjson", Array(alice[at..<end])))
            at = end
            if k == 3 { paths.append(cut.write("bob-0.ndjson", Array(bob[0..<1500]))) }
            if k == 5 { paths.append(cut.write("alice-again.ndjson", Array(alice[500..<700]) + [""])) }
        }
        paths.append(cut.write("alice-rest.ndjson", Array(alice[at...])))
        paths.append(cut.write("bob-1.ndjson", Array(bob[1500...])))
        let summary = try Ingester(store: try EventStore(path: cut.db)).ingest(paths: paths)
        #expect(summary.duplicates == 200)  // the lines sent twice

        let expected = try Self.chunks(whole.db)
        #expect(expected.count == 9)  // reports 5 + 2 chunks, events 1 + 1
        #expect(try Self.chunks(cut.db) == expected)
        #expect(try exportText(try EventStore(path: cut.db)) == exportText(try EventStore(path: whole.db)))
    }
}

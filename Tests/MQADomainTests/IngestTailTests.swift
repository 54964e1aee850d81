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

    /// alice's and bob's logs ingested whole into one store, and into
    /// another in one ingest of pieces: alice's in pieces of `sizes` lines,
    /// bob's first `bobSplit` lines after piece `bobAfter`, alice's lines
    /// `again` sent twice after piece `againAfter`, then the rests.
    static func wholeAndPieces(alice: [String], bob: [String], sizes: [Int], bobSplit: Int, bobAfter: Int,
                               again: Range<Int>, againAfter: Int) throws -> (whole: Scratch, cut: Scratch, summary: IngestSummary) {
        let whole = Scratch()
        let a = whole.write("alice.ndjson", alice), b = whole.write("bob.ndjson", bob)
        _ = try Ingester(store: try EventStore(path: whole.db)).ingest(paths: [a, b])

        let cut = Scratch()
        var paths: [String] = []
        var at = 0
        for (k, n) in sizes.enumerated() {
            let end = min(at + n, alice.count)
            paths.append(cut.write("alice-\(k).ndjson", Array(alice[at..<end])))
            at = end
            if k == bobAfter { paths.append(cut.write("bob-0.ndjson", Array(bob[0..<bobSplit]))) }
            if k == againAfter { paths.append(cut.write("alice-again.ndjson", Array(alice[again]) + [""])) }
        }
        paths.append(cut.write("alice-rest.ndjson", Array(alice[at...])))
        paths.append(cut.write("bob-1.ndjson", Array(bob[bobSplit...])))
        return (whole, cut, try Ingester(store: try EventStore(path: cut.db)).ingest(paths: paths))
    }

    @Test("pieces, another client between them and a piece sent twice: the chunks of one whole file each")
    func piecesAreStoredAsOneFile() throws {
        // Sizes around the chunk capacity (2048) and far under it.
        let (whole, cut, summary) = try Self.wholeAndPieces(
            alice: Self.lines("alice", reports: 9000), bob: Self.lines("bob", reports: 3000),
            sizes: [1, 37, 500, 2047, 2049, 3, 800, 1, 4000], bobSplit: 1500, bobAfter: 3, again: 500..<700, againAfter: 5)
        #expect(summary.duplicates == 200)  // the lines sent twice

        let expected = try Self.chunks(whole.db)
        #expect(expected.count == 9)  // reports 5 + 2 chunks, events 1 + 1
        #expect(try Self.chunks(cut.db) == expected)
        #expect(try exportText(try EventStore(path: cut.db)) == exportText(try EventStore(path: whole.db)))
    }

    /// Every `files` row as (name, status, lines, events, reports,
    /// duplicates, rejected), by name.
    static func fileRows(_ db: String) throws -> [String] {
        let store = try EventStore(path: db)
        let rows = try store.db.prepare(
            "SELECT path, status, lines, events, reports, duplicates, rejected FROM files ORDER BY path, id")
        var out: [String] = []
        while try rows.step() {
            let name = (rows.string(0) ?? "").split(separator: "/").last.map(String.init) ?? ""
            out.append("\(name) \(rows.string(1) ?? "") " + (Int32(2)...6).map { "\(rows.int($0))" }.joined(separator: " "))
        }
        return out
    }

    /// Ingests `paths` into a new store; returns it and the ingester.
    static func ingest(_ paths: [String], into db: String, joining: Bool) throws -> (IngestSummary, Ingester) {
        let ingester = Ingester(store: try EventStore(path: db))
        ingester.joinsPieces = joining
        return (try ingester.ingest(paths: paths), ingester)
    }

    @Test("a log in consecutive files is joined before it is encoded: the same chunks and per-file counts as piece by piece")
    func consecutivePiecesAreJoined() throws {
        let alice = Self.lines("alice", reports: 12_000), bob = Self.lines("bob", reports: 900)
        let s = Scratch()
        var paths: [String] = []
        func piece(_ name: String, _ lines: [String]) { paths.append(s.write(name + ".ndjson", lines)) }
        piece("a0", Array(alice[0..<300]))
        // The next piece starts with the last three lines again (a logger
        // that re-sent them), and swaps two lines across the boundary.
        piece("a1", Array(alice[297..<640]) + [alice[641]])
        piece("a2", [alice[640]] + Array(alice[642..<1000]) + ["{not json"])
        // More than one batch (8,192 lines): takes no part, stored as before.
        piece("a3", Array(alice[1000..<10_000]))
        piece("a4", Array(alice[10_000..<11_000]))
        // Two clients: alice's last piece, then bob's first, which goes on.
        piece("a5", Array(alice[11_000...]) + Array(bob[0..<400]))
        piece("b1", Array(bob[400...]))

        let (joined, ingester) = try Self.ingest(paths, into: s.dir + "/joined.sqlite", joining: true)
        let (pieceByPiece, _) = try Self.ingest(paths, into: s.dir + "/pieces.sqlite", joining: false)
        // a0 → a1 → a2, and bob's a5 → b1. a3 is more than a batch (it
        // takes the piece held for it as stored), and by a4 alice has
        // chunks stored, so a4 is stored too rather than held for a5.
        #expect(ingester.piecesJoined == 3)
        #expect(joined == pieceByPiece)
        #expect(joined.duplicates == 3 && joined.rejected == 1)
        #expect(try Self.fileRows(s.dir + "/joined.sqlite") == Self.fileRows(s.dir + "/pieces.sqlite"))
        let chunks = try Self.chunks(s.dir + "/joined.sqlite")
        #expect(chunks.count > 8)
        #expect(chunks == (try Self.chunks(s.dir + "/pieces.sqlite")))
        #expect(try exportText(try EventStore(path: s.dir + "/joined.sqlite"))
            == exportText(try EventStore(path: s.dir + "/pieces.sqlite")))
    }

    @Test("pieces joined in order are listed and copied together once; a piece that overlaps joins them first and merges")
    func inOrderPiecesAreListedThenCopiedOnce() throws {
        let alice = Self.lines("alice", reports: 4000)
        let s = Scratch()
        // Pieces in time order (joined by listing), one that starts before
        // the pieces so far end (merged, once they are copied together),
        // in order again, a piece of one event and no report, and a last
        // piece that repeats a report of the one before that.
        var paths: [String] = []
        func piece(_ name: String, _ lines: [String]) { paths.append(s.write(name + ".ndjson", lines)) }
        piece("a0", Array(alice[0..<250]))
        piece("a1", Array(alice[250..<600]))
        piece("a2", [alice[600]])
        // Starts with a line of a1 again, before its own first line.
        piece("a3", [alice[599]] + Array(alice[601..<1100]))
        piece("a4", Array(alice[1100..<1500]))
        piece("a5", Array(alice[1500..<2000]))
        // After a5's last event and before z's first.
        piece("e", [#"{"ts":\#(t0 + 1_799_500),"event":"active_speakers_change","meeting":"m-1","uid":"alice","speakers":[]}"#])
        // Starts with a5's last report again: its time is before the end of
        // the pieces joined so far, though not of the one before (no report).
        let lastReport = alice[1500..<2000].last { !$0.contains("active_speakers_change") }!
        piece("z", [lastReport] + Array(alice[2000...]))
        let (joined, ingester) = try Self.ingest(paths, into: s.dir + "/joined.sqlite", joining: true)
        let (pieceByPiece, _) = try Self.ingest(paths, into: s.dir + "/pieces.sqlite", joining: false)
        #expect(ingester.piecesJoined == paths.count - 1)
        #expect(joined == pieceByPiece)
        #expect(try Self.fileRows(s.dir + "/joined.sqlite") == Self.fileRows(s.dir + "/pieces.sqlite"))
        #expect(try Self.chunks(s.dir + "/joined.sqlite") == Self.chunks(s.dir + "/pieces.sqlite"))
        #expect(try exportText(try EventStore(path: s.dir + "/joined.sqlite"))
            == exportText(try EventStore(path: s.dir + "/pieces.sqlite")))
    }

    @Test("a piece held back for the next file survives that file failing: stored as if the failed file were not given")
    func heldPieceSurvivesAFailingNextInput() throws {
        let alice = Self.lines("alice", reports: 10_000)
        let s = Scratch()
        let first = s.write("a0.ndjson", Array(alice[0..<700]))
        // The next file goes on with alice's log, for more than a batch,
        // and then breaks off: its first lines are read (so alice is held
        // back for it) and a batch of it is taken, its end never comes.
        let text = Array((Array(alice[700..<9800]).joined(separator: "\n") + "\n").utf8)
        var frame: [UInt8] = []
        try text.withUnsafeBytes { try ZstdCompressor(level: 3).compress($0, appendingTo: &frame) }
        frame.removeLast(64)
        let broken = s.dir + "/a1.ndjson.zst"
        try Data(frame).write(to: URL(fileURLWithPath: broken))
        let last = s.write("a2.ndjson", Array(alice[9800...]))
        let ingester = Ingester(store: try EventStore(path: s.db))
        var failures: [String] = []
        ingester.onInputError = { failures.append("\($0)") }
        _ = try ingester.ingest(paths: [first, broken, last])
        #expect(failures.count == 1 && failures[0].contains("a1.ndjson.zst"), "\(failures)")
        #expect(ingester.piecesHeld == 1)

        let reference = Scratch()
        _ = try Self.ingest([first, last], into: reference.db, joining: false)
        #expect(try Self.chunks(s.db) == Self.chunks(reference.db))
    }

    @Test("a log joined from its pieces is encoded off the writer, and stored even when the next file fails")
    func joinedLogSurvivesAFailingNextInput() throws {
        let alice = Self.lines("alice", reports: 3000), bob = Self.lines("bob", reports: 9000)
        let s = Scratch()
        let pieces = [s.write("a0.ndjson", Array(alice[0..<1000])), s.write("a1.ndjson", Array(alice[1000...]))]
        // Bob's log, more than a batch, breaks off: the file fails after
        // alice's joined log was given to the encoder.
        let text = Array((bob.joined(separator: "\n") + "\n").utf8)
        var frame: [UInt8] = []
        try text.withUnsafeBytes { try ZstdCompressor(level: 3).compress($0, appendingTo: &frame) }
        frame.removeLast(64)
        let broken = s.dir + "/b0.ndjson.zst"
        try Data(frame).write(to: URL(fileURLWithPath: broken))
        let last = s.write("c0.ndjson", Self.lines("carol", reports: 50))
        let ingester = Ingester(store: try EventStore(path: s.db))
        var failures: [String] = []
        ingester.onInputError = { failures.append("\($0)") }
        _ = try ingester.ingest(paths: pieces + [broken, last])
        #expect(failures.count == 1 && failures[0].contains("b0.ndjson.zst"), "\(failures)")
        #expect(ingester.piecesJoined == 1 && ingester.seriesEncodedAside == 1)

        let reference = Scratch()
        _ = try Self.ingest(pieces + [last], into: reference.db, joining: false)
        #expect(try Self.chunks(s.db) == Self.chunks(reference.db))
        #expect(try Self.fileRows(s.db).filter { !$0.hasPrefix("b0") } == Self.fileRows(reference.db))
    }
}

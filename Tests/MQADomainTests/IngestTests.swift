import Foundation
import Testing
import MQATestSupport
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// A scratch folder per test (`ScratchFolder`), with the store's place.
final class Scratch: ScratchFolder {
    var dir: String { path }
    @discardableResult
    func write(_ name: String, _ lines: [String]) -> String { write(name, lines: lines) }
    var db: String { dir + "/mqa.sqlite" }
}

func qr(_ ts: Int64, uid: String = "alice", meeting: String = "m-1", loss: String = "0.4", mos: String = "4.31") -> String {
    #"{"ts":\#(ts),"event":"quality_report","meeting":"\#(meeting)","uid":"\#(uid)","loss":\#(loss),"rtt":48,"jitter":6,"bitrate":1850,"mos":\#(mos)}"#
}

func exportText(_ store: EventStore, meeting: String? = nil) throws -> String {
    let path = NSTemporaryDirectory() + "mqa-export-\(UUID().uuidString).ndjson"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let sink = try OutputSink(path: path)
    try Exporter(store: store).export(meeting: meeting, format: .ndjson, to: sink)
    try sink.close()
    return try String(contentsOfFile: path, encoding: .utf8)
}

/// The reasons given for the lines of `lines` rejected when ingested into
/// a new store in `scratch` (file `name`).
func rejectReasons(_ lines: [String], in scratch: Scratch, name: String = "bad.ndjson") throws -> [String] {
    let store = try EventStore(path: scratch.dir + "/" + name + ".sqlite")
    let ingester = Ingester(store: store)
    var told: [String] = []
    ingester.onReject = { told.append($0.reason) }
    _ = try ingester.ingest(paths: [scratch.write(name, lines)])
    return told
}

let t0: Int64 = 1_795_946_400_000

@Suite struct IngestTests {
    @Test func summaryCountsAddUp() throws {
        let s = Scratch()
        let file = s.write("a.ndjson", [
            #"{"ts":1795946400000,"event":"meeting_join","meeting":"m-1","uid":"alice","engine":"sfu"}"#,
            qr(t0 + 2000), qr(t0 + 2000), "", "  ", "garbage",
            #"{"ts":1795946400000,"event":"something_new","meeting":"m-1","uid":"alice"}"#,
            #"{"ts":1795946400000,"event":"meeting_join","meeting":"m-1","uid":"alice","engine":"sfu","extra":true}"#,
        ])
        let store = try EventStore(path: s.db)
        let summary = try Ingester(store: store).ingest(paths: [file])
        #expect(summary.lines == 6)
        #expect(summary.events == 2)
        #expect(summary.reports == 1)
        #expect(summary.duplicates == 2)
        #expect(summary.rejected == 1)
        #expect(summary.ignored == 1)
        #expect(summary.lines == summary.events + summary.rejected + summary.duplicates + summary.ignored)
    }

    /// The parser skips decoding ids equal to the last line's; a rejected
    /// or ignored line of another client in between must not make the next
    /// line count for the client before it.
    @Test func eachLineCountsForItsOwnClient() throws {
        let s = Scratch()
        let file = s.write("a.ndjson", [
            qr(t0, uid: "alice"),
            qr(t0 + 2000, uid: "bob", loss: "\"x\""),  // rejected after its ids
            qr(t0 + 4000, uid: "bob"),
            #"{"ts":1795946406000,"event":"something_new","meeting":"m-2","uid":"carol"}"#,
            qr(t0 + 8000, uid: "carol", meeting: "m-2"),
            qr(t0 + 10000, uid: "alice"), qr(t0 + 12000, uid: "alice"),
            qr(t0 + 14000, uid: "b\\u006fb"),  // bob, escaped
            qr(t0 + 16000, uid: "bob"),
        ])
        let store = try EventStore(path: s.db)
        let summary = try Ingester(store: store).ingest(paths: [file])
        #expect(summary.reports == 7 && summary.rejected == 1 && summary.ignored == 1)
        let select = try store.db.prepare("""
            SELECT m.meeting || '/' || c.uid, SUM(r.count) FROM clients c JOIN meetings m ON m.id = c.meeting_id
            JOIN report_chunks r ON r.client_id = c.id GROUP BY c.id ORDER BY 1
            """)
        var counts: [String] = []
        while try select.step() { counts.append("\(select.string(0) ?? "") \(select.int(1))") }
        #expect(counts == ["m-1/alice 3", "m-1/bob 3", "m-2/carol 1"])
    }

    /// Ids written with escapes are decoded once and then recognised by
    /// their escaped text; a change of either id, escaped or not, is seen.
    @Test func escapedIdsCountForTheirOwnClient() throws {
        let s = Scratch()
        let file = s.write("a.ndjson", [
            qr(t0, uid: "\\u00fc-1"), qr(t0 + 2000, uid: "\\u00fc-1"), qr(t0 + 4000, uid: "\\u00fc-1"),
            qr(t0 + 6000, uid: "\\u00fc-2"),
            qr(t0 + 8000, uid: "ü-1"),  // the same client, unescaped
            qr(t0 + 10000, uid: "\\u00fc-1"),
            qr(t0 + 12000, uid: "\\u00fc-1", meeting: "m-\\u00e9"),
            qr(t0 + 14000, uid: "\\u00fc-1", meeting: "m-\\u00e8"),
            qr(t0 + 16000, uid: "\\u00FC-1", meeting: "m-\\u00e8"),  // other spelling, same ids
        ])
        let store = try EventStore(path: s.db)
        let summary = try Ingester(store: store).ingest(paths: [file])
        #expect(summary.reports == 9 && summary.rejected == 0)
        let select = try store.db.prepare("""
            SELECT m.meeting || '/' || c.uid, SUM(r.count) FROM clients c JOIN meetings m ON m.id = c.meeting_id
            JOIN report_chunks r ON r.client_id = c.id GROUP BY c.id ORDER BY 1
            """)
        var counts: [String] = []
        while try select.step() { counts.append("\(select.string(0) ?? "") \(select.int(1))") }
        #expect(counts == ["m-1/ü-1 5", "m-1/ü-2 1", "m-è/ü-1 2", "m-é/ü-1 1"])
    }

    /// A one-batch input's series are chunked and encoded on its parsing
    /// thread; when the client already has chunks to merge with (a log in
    /// pieces, overlapping or following a chunk not yet full), the writer
    /// merges instead. Either way the store is the one a single input of
    /// all the lines gives.
    @Test func logsInPiecesStoreAsOneLogDoes() throws {
        let s = Scratch()
        let whole = (0..<3000).map { qr(t0 + Int64($0) * 2000, loss: "\(Double($0 % 7) / 10)") }
            + (0..<40).map { #"{"ts":\#(t0 + Int64($0) * 150_000),"event":"connection_quality_change","meeting":"m-1","uid":"alice","tier":"\#(["good", "poor"][$0 % 2])"}"# }
        let pieces = [
            Array(whole[0..<1000]) + Array(whole[3000..<3010]),
            Array(whole[900..<2100]) + Array(whole[3005..<3025]),  // overlaps: 100 reports and 5 events repeat
            Array(whole[2100..<3000]) + Array(whole[3025..<3040]),  // follows a chunk that is not full
        ]
        let files = pieces.enumerated().map { s.write("piece-\($0.offset).ndjson", $0.element) }
        let store = try EventStore(path: s.db)
        let summary = try Ingester(store: store).ingest(paths: files)
        #expect(summary.reports == 3000 && summary.events == 3040 && summary.duplicates == 105)

        let t = Scratch()
        let one = try EventStore(path: t.db)
        // In time order, and at equal ts each report before the event, as
        // each piece logs them (the order is kept at equal ts).
        func order(_ line: String) -> (String, Int) { (String(line.prefix(20)), line.contains("quality_report") ? 0 : 1) }
        _ = try Ingester(store: one).ingest(paths: [t.write("whole.ndjson", whole.sorted { order($0) < order($1) })])
        #expect(try exportText(store) == exportText(one))
        func chunks(_ e: EventStore) throws -> [String] {
            let select = try e.db.prepare("SELECT 'r', first_ts, last_ts, count FROM report_chunks UNION ALL SELECT 'e', first_ts, last_ts, count FROM event_chunks ORDER BY 1, 2")
            var rows: [String] = []
            while try select.step() { rows.append("\(select.string(0) ?? "") \(select.int64(1)) \(select.int64(2)) \(select.int(3))") }
            return rows
        }
        #expect(try chunks(store) == chunks(one))
    }

    /// A log cut into many small pieces, each following the last (how
    /// uploads come): the pieces' chunks go in as they are and the commit
    /// fills the client's tail, so the chunks are the ones a single input
    /// gives, in one ingest or in one per piece (a commit each).
    @Test(arguments: [true, false])
    func manySmallPiecesFillTheirChunks(oneIngest: Bool) throws {
        let s = Scratch()
        let whole = (0..<5000).map { qr(t0 + Int64($0) * 2000, loss: "\(Double($0 % 11) / 10)") }
            + (0..<900).map { #"{"ts":\#(t0 + Int64($0) * 11_000 + 1),"event":"connection_quality_change","meeting":"m-1","uid":"alice","tier":"\#(["good", "poor", "bad"][$0 % 3])"}"# }
        let lines = whole.sorted { ts(of: $0) < ts(of: $1) }
        let files = stride(from: 0, to: lines.count, by: 350).map {
            s.write(String(format: "piece-%03d.ndjson", $0 / 350), Array(lines[$0..<min($0 + 350, lines.count)]))
        }
        let store = try EventStore(path: s.db)
        if oneIngest {
            let summary = try Ingester(store: store).ingest(paths: files)
            #expect(summary.reports == 5000 && summary.events == 5900 && summary.duplicates == 0)
        } else {
            for f in files { _ = try Ingester(store: store).ingest(path: f) }
        }
        #expect(store.openTails.isEmpty)
        let t = Scratch()
        let one = try EventStore(path: t.db)
        _ = try Ingester(store: one).ingest(paths: [t.write("whole.ndjson", lines)])
        #expect(try exportText(store) == exportText(one))
        #expect(try chunkLayout(store) == chunkLayout(one))
        #expect(try chunkLayout(store).count == 3 + 1, "5000 reports in 3 chunks, 900 events in 1")
    }

    @Test func reingestingIdenticalContentIsANoOp() throws {
        let s = Scratch()
        let file = s.write("a.ndjson", (0..<100).map { qr(t0 + Int64($0) * 2000) })
        let store = try EventStore(path: s.db)
        let first = try Ingester(store: store).ingest(paths: [file])
        let before = try exportText(store)
        let second = try Ingester(store: store).ingest(paths: [file])
        #expect(first.reports == 100)
        #expect(second.skippedFiles == 1)
        #expect(second.lines == 0)
        #expect(try exportText(store) == before)
    }

    @Test func splitAndOverlappingFilesMergeWithoutDuplicates() throws {
        let s = Scratch()
        let all = (0..<3000).map { qr(t0 + Int64($0) * 2000, loss: String($0 % 17)) }
        // Three uploads: overlapping ranges, out of order, one shuffled.
        let a = s.write("a.ndjson", Array(all[0..<1200]))
        let b = s.write("b.ndjson", Array(all[1000..<2500]).reversed())
        let c = s.write("c.ndjson", Array(all[2400..<3000]) + Array(all[0..<10]))
        let merged = try EventStore(path: s.db)
        let ingester = Ingester(store: merged)
        var total = IngestSummary()
        for f in [b, a, c] { total = total + (try ingester.ingest(path: f)) }
        #expect(total.reports == 3000)
        #expect(total.duplicates == 200 + 100 + 10)

        let s2 = Scratch()
        let reference = try EventStore(path: s2.db)
        _ = try Ingester(store: reference).ingest(paths: [s2.write("all.ndjson", all)])
        #expect(try exportText(merged) == exportText(reference))
        // Chunks of a client never overlap.
        let q = try merged.db.prepare("SELECT first_ts, last_ts FROM report_chunks ORDER BY first_ts")
        var previousEnd = Int64.min
        while try q.step() {
            #expect(q.int64(0) >= previousEnd)
            previousEnd = q.int64(1)
        }
    }

    @Test func duplicatesAreFoundAcrossRunsAndNumberSpellings() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", [qr(t0, loss: "0.4", mos: "0")])])
        let again = try Ingester(store: store).ingest(paths: [s.write("b.ndjson", [
            qr(t0, loss: "4e-1", mos: "null"),  // same values: duplicate (mos 0 == null)
            qr(t0, loss: "0.5", mos: "0"),  // same instant, different value: kept
            #"{"ts":"2026-11-29T10:00:00Z","event":"reconnect","meeting":"m-1","uid":"alice"}"#,
            #"{"ts":1795946400000,"event":"reconnect","meeting":"m-1","uid":"alice","x":1}"#,
        ])])
        #expect(again.duplicates == 2)
        #expect(again.events == 2)
    }

    /// Numbers are compared by value as they are stored, exactly: two
    /// decimals whose doubles are equal are still two reports (as the
    /// export keeps them apart), where `0.40` and `4e-1` are one.
    @Test func duplicatesCompareDecimalsExactly() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        let summary = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", [
            qr(t0, loss: "0.1", mos: "4"), qr(t0, loss: "0.10000000000000001", mos: "4"),
            qr(t0 + 1000, loss: "0", mos: "4"), qr(t0 + 1000, loss: "1e-400", mos: "4"),
            qr(t0 + 2000, loss: "0.40", mos: "4"), qr(t0 + 2000, loss: "4e-1", mos: "4.0"),
        ])])
        #expect(summary.duplicates == 1 && summary.reports == 5, "\(summary)")
    }

    @Test func exportReingestsToTheSameExport() throws {
        let s = Scratch()
        let file = s.write("a.ndjson", [
            #"{"ts":1795946400000,"event":"meeting_join","meeting":"m \"1\"","uid":"ålice","engine":"sfu","title":"<b>Q&A</b> 🎉"}"#,
            #"{"ts":1795946400000,"event":"quality_report","meeting":"m \"1\"","uid":"ålice","loss":0,"rtt":0,"jitter":0,"bitrate":0,"mos":null}"#,
            #"{"ts":1795946402000,"event":"active_speakers_change","meeting":"m \"1\"","uid":"ålice","speakers":["b","ålice"]}"#,
            #"{"ts":1795946402000,"event":"quality_report","meeting":"m \"1\"","uid":"ålice","loss":12.25,"rtt":1e20,"jitter":0.001,"bitrate":5e-7,"mos":4.5}"#,
            #"{"ts":1795946404000,"event":"disconnect","meeting":"m \"1\"","uid":"ålice","reason":"network","error":"timeout"}"#,
            #"{"ts":1795946404000,"event":"quality_report","meeting":"m \"1\"","uid":"ålice","loss":1,"rtt":1,"jitter":1,"bitrate":1,"mos":1}"#,
        ])
        let first = try EventStore(path: s.db)
        _ = try Ingester(store: first).ingest(paths: [file])
        let exported = try exportText(first)
        let s2 = Scratch()
        let second = try EventStore(path: s2.db)
        _ = try Ingester(store: second).ingest(paths: [s2.write("export.ndjson", exported.split(separator: "\n").map(String.init))])
        #expect(try exportText(second) == exported)
        // At equal ts, input order: a report may come after a disconnect.
        let kinds = exported.split(separator: "\n").map { $0.contains("quality_report") ? "q" : "e" }
        #expect(kinds == ["e", "q", "e", "q", "e", "q"])
        #expect(exported.contains(#""loss":12.25,"rtt":1e20,"jitter":0.001,"bitrate":0.0000005,"mos":4.5"#))
    }

    @Test func anInterruptedFileResumesWhereItsLastCommitEnded() throws {
        let s = Scratch()
        let lines = (0..<1000).map { qr(t0 + Int64($0) * 2000) } + ["bad line"]
        let full = s.write("a.ndjson", lines)
        let store = try EventStore(path: s.db)
        // The state a kill leaves after a commit at line 600: those lines
        // stored, the file's row 'partial' with its progress, counters and
        // the digest of its content through line 600.
        let prefixFile = s.write("prefix.ndjson", Array(lines[0..<600]))
        _ = try Ingester(store: store).ingest(path: prefixFile)
        let prefix = try Data(contentsOf: URL(fileURLWithPath: prefixFile))
        let mark = try store.db.prepare(
            """
            INSERT INTO files (path, path_key, status, lines_done, prefix_hash, lines, events, reports, ingested_at)
            VALUES (?, ?, 'partial', 600, ?, 600, 600, 600, 0)
            """)
        mark.bind(1, full)
        mark.bind(2, FileKeys.pathKey(full))
        FileKeys.bind(mark, 3, digest: prefix.withUnsafeBytes { SHA256.text(SHA256.digest($0)) })
        try mark.run()
        let resumed = try Ingester(store: store).ingest(path: full)
        #expect(resumed.lines == 1001)
        #expect(resumed.reports == 1000)
        #expect(resumed.duplicates == 0)
        #expect(resumed.rejected == 1)

        let s2 = Scratch()
        let clean = try EventStore(path: s2.db)
        _ = try Ingester(store: clean).ingest(path: full)
        #expect(try exportText(store) == exportText(clean))
    }

    /// `files` is looked up by a 32-bit key of the path; two paths with the
    /// same key are still two inputs, each recognised as itself.
    @Test func pathsSharingAPathKeyAreToldApart() throws {
        let s = Scratch()
        var seen: [Int64: String] = [:]
        var pair: (String, String)?
        var r = SplitMix64(seed: 32)
        // Random names: counting ones differ in their last bytes only, where
        // FNV-1a is a bijection, and rarely collide.
        for _ in 0..<400_000 where pair == nil {
            let name = "log-" + String(r.next() >> 16, radix: 36) + ".ndjson"
            let key = FileKeys.pathKey(s.dir + "/" + name)
            if let other = seen[key] { pair = (other, name) } else { seen[key] = name }
        }
        let (a, b) = try #require(pair)
        let pathA = s.write(a, (0..<5).map { qr(t0 + Int64($0) * 2000, uid: "alice") })
        let pathB = s.write(b, (0..<7).map { qr(t0 + Int64($0) * 2000, uid: "bob") })
        #expect(FileKeys.pathKey(pathA) == FileKeys.pathKey(pathB))
        let store = try EventStore(path: s.db)
        let first = try Ingester(store: store).ingest(paths: [pathA, pathB])
        #expect(first.reports == 12)
        let again = try Ingester(store: store).ingest(paths: [pathB, pathA])
        #expect(again.skippedFiles == 2)
        #expect(again.lines == 0)
        let rows = try store.db.prepare("SELECT path, status, reports FROM files ORDER BY path")
        var listed: [String] = []
        while try rows.step() { listed.append("\(rows.string(0) ?? "") \(rows.string(1) ?? "") \(rows.int(2))") }
        #expect(listed == [pathA + " done 5", pathB + " done 7"].sorted())
    }

    /// A partial record whose file was rewritten meanwhile is not resumed
    /// blindly: the prefix digest differs, so the file is read anew from
    /// line 1 and nothing of the new content is skipped.
    @Test func aRewrittenPartialFileIsReadAnew() throws {
        let s = Scratch()
        let lines = (0..<1000).map { qr(t0 + Int64($0) * 2000) }
        let full = s.write("a.ndjson", lines)
        let store = try EventStore(path: s.db)
        let mark = try store.db.prepare(
            "INSERT INTO files (path, path_key, status, lines_done, prefix_hash, ingested_at) VALUES (?, ?, 'partial', 600, 'sha256:00', 0)")
        mark.bind(1, full)
        mark.bind(2, FileKeys.pathKey(full))
        try mark.run()
        let summary = try Ingester(store: store).ingest(path: full)
        #expect(summary.reports == 1000)
        #expect(summary.lines == 1000)
        let status = try store.db.prepare("SELECT status FROM files ORDER BY id")
        var statuses: [String] = []
        while try status.step() { statuses.append(status.string(0) ?? "") }
        #expect(statuses == ["superseded", "done"])
    }

    @Test func zstdInputsAreStreamed() throws {
        let s = Scratch()
        let plain = s.write("a.ndjson", (0..<5000).map { qr(t0 + Int64($0) * 2000) })
        let zst = plain + ".zst"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/zstd")
        p.arguments = ["-q", "-f", plain, "-o", zst]
        try p.run()
        p.waitUntilExit()
        let store = try EventStore(path: s.db)
        let summary = try Ingester(store: store).ingest(path: zst)
        #expect(summary.reports == 5000)
        // A truncated frame is an input error, not a crash or silent loss.
        let data = try Data(contentsOf: URL(fileURLWithPath: zst))
        let cut = s.dir + "/cut.ndjson.zst"
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        #expect(throws: InputError.self) { try Ingester(store: store).ingest(path: cut) }
    }

    @Test func oversizeLinesAreRejectedWithoutBeingHeld() throws {
        let s = Scratch()
        let huge = #"{"ts":1795946400000,"event":"x","meeting":"m","uid":"u","pad":""# + String(repeating: "a", count: 3 << 20) + #""}"#
        let file = s.write("a.ndjson", [qr(t0), huge, qr(t0 + 2000)])
        let store = try EventStore(path: s.db)
        var reasons: [String] = []
        let ingester = Ingester(store: store)
        ingester.onReject = { reasons.append("\($0.line): \($0.reason)") }
        let summary = try ingester.ingest(path: file)
        #expect(summary.reports == 2)
        #expect(reasons == ["2: line longer than 1 MiB (\(huge.utf8.count) bytes)"])
    }
}

/// Rejects are told once their input is written: a copy of content
/// ingested before (a no-op) tells none, in the same run or a later one,
/// and an input of more bad lines than are held still tells them all.
@Suite struct RejectsToldTests {
    @Test func aCopyOfIngestedContentTellsNoRejects() throws {
        let s = Scratch()
        let lines = [qr(t0), "{bad", qr(t0 + 2000), "[1]", qr(t0 + 4000)]
        let f = s.write("f.ndjson", lines)
        let store = try EventStore(path: s.db)
        var told: [String] = []
        let first = Ingester(store: store)
        first.onReject = { told.append("\($0.file.split(separator: "/").last!):\($0.line)") }
        #expect(try first.ingest(paths: [f, s.write("g.ndjson", lines)]).rejected == 2)
        #expect(told == ["f.ndjson:2", "f.ndjson:4"], "the copy in the same run tells none")
        told = []
        let again = Ingester(store: store)
        again.onReject = { told.append("\($0.line)") }
        let summary = try again.ingest(paths: [s.write("h.ndjson", lines)])
        #expect(summary.skippedFiles == 1 && summary.rejected == 0 && told.isEmpty, "\(told)")
    }

    @Test func manyRejectsAreAllToldAndACopyOfThemNone() throws {
        let s = Scratch()
        let bad = 1500
        let lines = [qr(t0)] + Array(repeating: "{bad", count: bad)
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        var told: [Int] = []
        ingester.onReject = { told.append($0.line) }
        #expect(try ingester.ingest(paths: [s.write("f.ndjson", lines)]).rejected == bad)
        #expect(told == Array(2...(bad + 1)))
        told = []
        let copy = try ingester.ingest(paths: [s.write("g.ndjson", lines)])
        #expect(copy.skippedFiles == 1 && told.isEmpty, "\(told.count) told")
    }

    /// An input that fails after its own checkpoints stored a part tells
    /// the rejects of that part, the ones the store keeps.
    @Test func aFailedInputTellsTheRejectsItStored() throws {
        let s = Scratch()
        var lines = (0..<30_000).map { qr(t0 + Int64($0) * 2000) }
        for i in [1, 4_000, 29_000] { lines[i] = "{bad \(i)" }
        let broken = try SummaryWorkersTests.broken(s, "f.ndjson.zst", lines)
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        ingester.commitEvery = 1000
        var told: [Int] = []
        ingester.onReject = { told.append($0.line) }
        var failures = 0
        ingester.onInputError = { _ in failures += 1 }
        _ = try ingester.ingest(paths: [broken])
        let select = try store.db.prepare("SELECT line FROM rejects ORDER BY line")
        var stored: [Int] = []
        while try select.step() { stored.append(select.int(0)) }
        #expect(failures == 1)
        #expect(!stored.isEmpty && told == stored, "told \(told), stored \(stored)")
    }
}

@Suite struct IngestPipelineTests {
    /// The same content twice in one run (parsed ahead while the first copy
    /// is written) is stored once and counted as a skipped file.
    @Test func identicalFilesInOneRunAreStoredOnce() throws {
        let s = Scratch()
        let lines = (0..<500).map { qr(t0 + Int64($0) * 2000) }
        let a = s.write("a.ndjson", lines)
        let b = s.write("b.ndjson", lines)
        let c = s.write("c.ndjson", (0..<50).map { qr(t0 + Int64($0) * 2000, uid: "bob") })
        let store = try EventStore(path: s.db)
        let summary = try Ingester(store: store).ingest(paths: [a, b, c, a])
        #expect(summary.files == 4)
        #expect(summary.skippedFiles == 2)
        #expect(summary.reports == 550)
        #expect(summary.duplicates == 0)
    }

    /// A failing input in the middle does not stop or disturb the others.
    @Test func anInputThatFailsHalfWayUndoesOnlyItself() throws {
        // Inputs share write transactions, each input a savepoint: a zstd
        // input cut short has had its early rejects stored when its damage
        // shows; those go, the inputs before and after it in the same
        // transaction stay.
        let s = Scratch()
        let a = s.write("a.ndjson", [qr(t0)])
        let plain = s.write("b.ndjson", ["not json", #"{"ts":1}"#] + (0..<40_000).map { qr(t0 + Int64($0) * 2000, uid: "carol") })
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/zstd")
        p.arguments = ["-q", "-f", plain, "-o", plain + ".zst"]
        try p.run()
        p.waitUntilExit()
        let data = try Data(contentsOf: URL(fileURLWithPath: plain + ".zst"))
        let cut = s.dir + "/cut.ndjson.zst"
        try data.prefix(data.count * 3 / 4).write(to: URL(fileURLWithPath: cut))
        let c = s.write("c.ndjson", [qr(t0, uid: "bob")])
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        var errors: [String] = []
        ingester.onInputError = { errors.append("\($0)") }
        let summary = try ingester.ingest(paths: [a, cut, c])
        #expect(errors.count == 1)
        #expect(summary.reports == 2)
        let exported = try exportText(store)
        #expect(exported.contains("\"alice\"") && exported.contains("\"bob\""))
        #expect(!exported.contains("carol"))
        #expect(try store.runQuery("rejects").rows.isEmpty, "the cut input's rejects were undone")
        // Its row stays partial at line 0: a re-run of the whole file starts afresh.
        #expect(try store.latestFile(path: cut)?.status == .partial)
        #expect(try store.latestFile(path: cut)?.linesDone == 0)
    }

    @Test func aBadInputBetweenGoodOnesIsReportedAndSkipped() throws {
        let s = Scratch()
        let a = s.write("a.ndjson", [qr(t0)])
        let c = s.write("c.ndjson", [qr(t0, uid: "bob")])
        let ingester = Ingester(store: try EventStore(path: s.db))
        var errors: [String] = []
        ingester.onInputError = { errors.append("\($0)") }
        let summary = try ingester.ingest(paths: [a, s.dir + "/missing.ndjson", s.dir, c])
        #expect(summary.reports == 2)
        #expect(errors.count == 2)
        #expect(ingester.failedInputs == 2)
    }
}

/// A test line's `ts` (an integer), for sorting lines by time.
func ts(of line: String) -> Int64 {
    let after = line.range(of: #""ts":"#)!.upperBound
    return Int64(line[after...].prefix { $0.isNumber })!
}

/// The store's chunk rows, table, time range and count, in time order.
func chunkLayout(_ e: EventStore) throws -> [String] {
    let select = try e.db.prepare("SELECT 'r', first_ts, last_ts, count FROM report_chunks UNION ALL SELECT 'e', first_ts, last_ts, count FROM event_chunks ORDER BY 1, 2")
    var rows: [String] = []
    while try select.step() { rows.append("\(select.string(0) ?? "") \(select.int64(1)) \(select.int64(2)) \(select.int(3))") }
    return rows
}

import Foundation
import Testing

/// Inputs built to hurt: each gets a clear message and an exit code of the
/// spec (3: some lines rejected, 1: an input failed as a whole), never a
/// crash, and the store stays sound (`mqa check` exits 0).
@Suite struct HostileInputTests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    func ingest(_ paths: [String], stdin: String? = nil, environment: [String: String] = [:]) -> MQA.Result {
        MQA.run(["ingest", "--db", db, "--format", "json"] + paths, stdin: stdin, environment: environment, timeout: 300)
    }

    func expectSound(_ comment: Comment? = nil) {
        let r = MQA.run(["check", "--db", db])
        #expect(r.status == 0, "store not sound after a hostile input: \(r)")
    }

    @Test func lineOverOneMiBIsRejectedAndTheRestKept() {
        let long = "{\"ts\":1795946404000,\"event\":\"user_enter\",\"meeting\":\"m\",\"uid\":\"u\",\"target\":\""
            + String(repeating: "x", count: 3 << 20) + "\"}\n"
        let path = dir.write("long.ndjson", Lines.meeting("m-1") + long + Lines.meeting("m-2")
                             + String(repeating: "y", count: (1 << 20) + 5))  // no final newline
        let r = ingest([path])
        #expect(r.status == 3, "\(r)")
        #expect(r.stderr.contains("long.ndjson:11: line longer than 1 MiB (\(long.utf8.count - 1) bytes)"), "\(r)")
        #expect(r.stderr.contains("long.ndjson:22: line longer than 1 MiB (\((1 << 20) + 5) bytes)"), "\(r)")
        #expect(r.counts["events"] == 20)
        #expect(r.counts["rejected"] == 2)
        let rejects = MQA.run(["query", "rejects", "--db", db, "--format", "csv"])
        #expect(rejects.stdout.contains("line longer than 1 MiB"), "\(rejects)")
        expectSound()
    }

    /// A context line is read twice (the line scanner, then the exact
    /// reader for its fields): both take the same depth, so a line one
    /// takes the other does not refuse as "not a JSON object".
    @Test func aDeepContextLineIsReadAsDeepAsAnEventLine() {
        func context(_ depth: Int) -> String {
            #"{"ts":1795946399998,"event":"mqa_connection_context","meeting":"m","uid":"u","connection":"PC_0","paths":[],"#
                + #""limitedMs":{},"concealment":null,"zz":"# + String(repeating: "[", count: depth) + "1"
                + String(repeating: "]", count: depth) + "}\n"
        }
        let join = #"{"ts":1795946399000,"event":"meeting_join","meeting":"m","uid":"u","engine":"sfu"}"# + "\n"
        let path = dir.write("deep-context.ndjson", join + context(511) + context(512))
        let r = ingest([path])
        #expect(r.status == 3 && r.counts["rejected"] == 1, "\(r)")
        #expect(r.stderr.contains("deep-context.ndjson:3: not valid JSON: nested deeper than 512 levels"), "\(r)")
        #expect(!r.stderr.contains("deep-context.ndjson:2"), "\(r)")
    }

    @Test func deeplyNestedJSONHitsTheDepthLimit() {
        let deep = "{\"ts\":1795946404000,\"event\":\"x\",\"meeting\":\"m\",\"uid\":\"u\",\"a\":"
            + String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000) + "}\n"
        let objects = String(repeating: "{\"a\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000) + "\n"
        let justInside = "{\"ts\":1795946404000,\"event\":\"x\",\"meeting\":\"m\",\"uid\":\"u\",\"a\":"
            + String(repeating: "[", count: 510) + String(repeating: "]", count: 510) + "}\n"
        let path = dir.write("deep.ndjson", deep + objects + justInside)
        let r = ingest([path])
        #expect(r.status == 3, "\(r)")
        #expect(r.stderr.contains("deep.ndjson:1: not valid JSON: nested deeper than 512 levels"), "\(r)")
        #expect(r.stderr.contains("deep.ndjson:2: not valid JSON: nested deeper than 512 levels"), "\(r)")
        #expect(r.counts["ignored"] == 1, "depth 511 is fine: \(r)")
        expectSound()
    }

    @Test func invalidUTF8IsRejectedWithItsColumn() {
        let head = Array("{\"ts\":1795946404000,\"event\":\"user_enter\",\"meeting\":\"".utf8)
        let tail = Array("\",\"uid\":\"u\",\"target\":\"x\"}\n".utf8)
        var bytes: [UInt8] = []
        let bad: [[UInt8]] = [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0x80], [0xF4, 0x90, 0x80, 0x80],
                              [0xF8, 0x88, 0x80, 0x80, 0x80]]
        for b in bad { bytes += head + Array("m".utf8) + b + tail }
        bytes += Array("\u{FEFF}{\"ts\":1}\n".utf8)  // a BOM is not JSON either
        bytes += [0x00, 0x01, 0xFF, 0xFE, 0x0A]
        bytes += head + Array("m-ok-é".utf8) + tail
        let path = dir.write("utf8.ndjson", bytes: bytes)
        let r = ingest([path])
        #expect(r.status == 3, "\(r)")
        for line in 1...bad.count { #expect(r.stderr.contains("utf8.ndjson:\(line): invalid UTF-8 at column"), "line \(line): \(r)") }
        #expect(r.counts["rejected"] == bad.count + 2)
        #expect(r.counts["events"] == 1)
        let export = MQA.run(["export", "--db", db])
        #expect(export.stdout.contains("m-ok-é"))
        expectSound()
    }

    @Test func zstdBombIsStreamedInBoundedMemory() {
        // 1 GiB of spaces between two good lines, in a ~32 KB file: one
        // enormous line, rejected without ever being held.
        let expanded = 1 << 30
        let frame = ZstdFrame.bomb(prefix: Lines.meeting("m-before"), byte: 0x20, count: expanded,
                                   suffix: "\n" + Lines.meeting("m-after"))
        #expect(frame.count < 40_000)
        let path = dir.write("bomb.ndjson.zst", bytes: frame)
        let r = ingest([path])
        #expect(r.status == 3, "\(r)")
        #expect(r.stderr.contains("bomb.ndjson.zst:11: line longer than 1 MiB (\(expanded) bytes)"), "\(r)")
        #expect(r.counts["events"] == 20, "\(r)")
        #expect(r.maxRSSKiB > 0 && r.maxRSSKiB < 150_000, "peak memory \(r.maxRSSKiB) KiB for a 1 GiB expansion")
        expectSound()
    }

    @Test func truncatedZstdFailsThatFileOnly() {
        let good = dir.write("good.ndjson", Lines.meeting("m-good"))
        let frame = ZstdFrame.stored(Lines.meeting("m-cut", reports: 200))
        let cut = dir.write("cut.ndjson.zst", bytes: Array(frame.prefix(frame.count / 2)))
        let notZstd = dir.write("plain.ndjson.zst", Lines.meeting("m-plain"))
        let r = ingest([cut, notZstd, good])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: \(cut): zstd stream is damaged or truncated: unexpected end of data"), "\(r)")
        // Compression is told by magic bytes, not the name: a plain log named .zst is read as plain.
        #expect(!r.stderr.contains("\(notZstd)"), "\(r)")
        #expect(MQA.run(["export", "--db", db, "--meeting", "m-plain"]).status == 0, "the misnamed plain file is ingested")
        #expect(MQA.run(["export", "--db", db, "--meeting", "m-good"]).status == 0, "the other file is ingested")
        expectSound()
        // The truncated file rolled back whole: nothing half-stored of it.
        #expect(MQA.run(["export", "--db", db, "--meeting", "m-cut"]).status == 1)
    }

    @Test func manyDistinctMeetingIDs() {
        // Scaled down for CI; MQA_STRESS=1 (Scripts/stress.sh) runs 2,000,000.
        let n = ProcessInfo.processInfo.environment["MQA_STRESS"] == "1" ? 2_000_000 : 20_000
        let path = dir.file("many.ndjson")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = FileHandle(forWritingAtPath: path)!
        var chunk = ""
        for i in 0..<n {
            chunk += "{\"ts\":1795946404000,\"event\":\"meeting_join\",\"meeting\":\"m-\(i)\",\"uid\":\"u\",\"engine\":\"sfu\"}\n"
            if chunk.utf8.count > 1 << 20 { handle.write(Data(chunk.utf8)); chunk = "" }
        }
        handle.write(Data(chunk.utf8))
        try? handle.close()
        let r = ingest([path], environment: ["MQA_COMMIT_EVERY": "10000"])
        #expect(r.status == 0, "\(r)")
        #expect(r.counts["events"] == n)
        #expect(r.maxRSSKiB > 0 && r.maxRSSKiB < 150_000, "peak memory \(r.maxRSSKiB) KiB for \(n) meetings")
        let last = MQA.run(["export", "--db", db, "--meeting", "m-\(n - 1)"])
        #expect(last.status == 0 && last.stdout.contains("\"m-\(n - 1)\""), "\(last)")
        expectSound()
    }

    @Test func logOfOnlyBadLines() {
        var text = ""
        for i in 0..<500 { text += i % 2 == 0 ? "not json \(i)\n" : "{\"ts\":\"yesterday\",\"event\":\"x\",\"meeting\":\"m\",\"uid\":\"u\"}\n" }
        let path = dir.write("bad.ndjson", text)
        let r = ingest([path])
        #expect(r.status == 3, "\(r)")
        #expect(r.counts["rejected"] == 500)
        #expect(r.counts["events"] == 0)
        #expect(r.stderr.split(separator: "\n").filter { $0.hasPrefix("\(path):") }.count == 20, "the first 20 shown")
        #expect(r.stderr.contains("… and 480 more rejected lines"), "\(r)")
        let rejects = MQA.run(["query", "rejects", "--db", db, "--format", "json"])
        #expect(rejects.status == 0)
        #expect(rejects.stdout.components(separatedBy: "\"reason\"").count - 1 == 500, "all 500 in the store")
        expectSound()
    }

    /// A rejected line's raw text is stored whole (event-log.md: "the raw
    /// text"); it was cut to 4 KiB. A line over 1 MiB, which the reader
    /// never holds, keeps its first 4 KiB and its length.
    @Test func rejectedLinesKeepTheirWholeRawText() throws {
        let long = #"{"ts":1795946400000,"event":"meeting_join","meeting":"m","uid":"u","engine":"sfu","title":""# + String(repeating: "é", count: 5000)
        let huge = "x" + String(repeating: "y", count: (1 << 20) + 10)
        let path = dir.write("raw.ndjson", long + "\n" + huge + "\n")
        let r = ingest([path])
        #expect(r.status == 3 && r.counts["rejected"] == 2, "\(r)")
        let rejects = MQA.run(["query", "rejects", "--db", db, "--format", "json"])
        let rows = try #require((try JSONSerialization.jsonObject(with: Data(rejects.stdout.utf8)) as? [String: Any])?["rows"] as? [[String: Any]])
        let raws = rows.compactMap { $0["raw"] as? String }
        #expect(raws.count == 2 && rows.count == 2)
        // Lengths in the messages: the texts themselves are megabytes.
        #expect(raws.contains(long), "the unterminated title line, whole: \(raws.map(\.utf8.count))")
        #expect(raws.contains(String(huge.prefix(4096))), "the line over 1 MiB: its first 4 KiB: \(raws.map(\.utf8.count))")
        expectSound()
    }

    @Test func emptyAndBlankFiles() {
        let empty = dir.write("empty.ndjson", "")
        let blank = dir.write("blank.ndjson", "\n\r\n   \n\t\n")
        let emptyZst = dir.write("empty.ndjson.zst", "")
        let r = ingest([empty, blank, emptyZst])
        #expect(r.status == 0, "\(r)")
        #expect(r.counts["lines"] == 0)
        #expect(r.counts["files"] == 3)
        expectSound()
    }

    @Test func directoryOrMissingFileGivenAsAFile() {
        let folder = dir.file("logs")
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let good = dir.write("good.ndjson", Lines.meeting("m-good"))
        let missing = dir.file("missing.ndjson")
        let r = ingest([folder, missing, good])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: \(folder): is a directory (give the log files inside it"), "\(r)")
        #expect(r.stderr.contains("Error: \(missing): cannot open: No such file or directory"), "\(r)")
        #expect(r.counts["events"] == 10, "the good file is still ingested")
        expectSound()
        // A directory as the store: a clear error, not a crash.
        let asStore = MQA.run(["export", "--db", folder])
        #expect(asStore.status == 1)
        #expect(asStore.stderr.contains("is a directory"), "\(asStore)")
    }

    @Test func binaryGarbageAndStdin() {
        var rng = SystemRandomNumberGenerator()
        let garbage = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let path = dir.write("garbage.bin", bytes: garbage)
        let r = ingest([path])
        // Random bytes almost always hold a NUL or control bytes in their
        // first 64 (about 98%): the file fails with one sentence. Otherwise
        // its lines are rejected one by one.
        let refused = r.status == 1 && r.stderr.contains("\(path): looks compressed or binary (first bytes ")
        #expect(refused || r.status == 3 || r.status == 0, "\(r)")
        #expect(r.signal == 0)
        let stdin = dir.write("stdin.ndjson", Lines.meeting("m-stdin") + "oops\n")
        let s = ingest(["-"], stdin: stdin)
        #expect(s.status == 3, "\(s)")
        #expect(s.stderr.contains("-:11: not valid JSON"), "\(s)")
        expectSound()
    }

    /// Small inputs are parsed far ahead of the writer (by bytes, not by a
    /// handful of inputs): stdin in the middle is still read at its turn,
    /// and a missing file among those read ahead fails alone.
    @Test func manyInputsReadAheadWithStdinInTheMiddle() {
        var paths = (0..<60).map { dir.write("many-\($0).ndjson", Lines.meeting("m-many-\($0)")) }
        paths.insert("-", at: 30)
        let missing = dir.file("missing-ahead.ndjson")
        paths.insert(missing, at: 45)
        let stdin = dir.write("stdin-middle.ndjson", Lines.meeting("m-stdin-middle"))
        let r = ingest(paths, stdin: stdin)
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: \(missing): cannot open"), "\(r)")
        #expect(r.counts["events"] == 61 * 10, "\(r)")
        #expect(r.counts["files"] == 61, "\(r)")
        let again = ingest(paths.filter { $0 != "-" && $0 != missing })
        #expect(again.status == 0, "\(again)")
        #expect(again.counts["skippedFiles"] == 60, "\(again)")
        expectSound()
    }

    @Test func notAStoreFile() {
        let fake = dir.write("fake.sqlite", String(repeating: "this is not a database\n", count: 400))
        let r = MQA.run(["check", "--db", fake])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: \(fake) is not an mqa store: the file is not a SQLite database"), "\(r)")
        #expect(!r.stdout.contains("No damage found"), "\(r)")
        let e = MQA.run(["export", "--db", fake])
        #expect(e.status == 1, "\(e)")
        #expect(e.stderr.hasPrefix("Error: "), "\(e)")
    }

    /// Two clients whose uids differ only in Unicode normalization ("José"
    /// precomposed, and with a combining accent) are two clients of the
    /// store; Swift strings take them for one, and the meeting report
    /// trapped ("Duplicate values for key"). Every report form now runs.
    @Test func uidsEqualOnlyCanonicallyCrashNoReport() throws {
        let nfc = Lines.meeting("m-u", uid: "jos\u{E9}")
        let nfd = Lines.meeting("m-u", uid: "jose\u{301}", start: Lines.t0 + 1000)
        let f = dir.write("log.ndjson", nfc + nfd)
        #expect(MQA.run(["ingest", "--db", db, f]).status == 0)
        for format in ["md", "json", "csv", "html"] {
            let r = MQA.run(["report", "meeting", "m-u", "--db", db, "-f", format])
            #expect(r.status == 0 && r.signal == 0, "\(format): \(r)")
        }
        let json = MQA.run(["report", "meeting", "m-u", "--db", db, "-f", "json"]).stdout
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((doc["participants"] as? [Any])?.count == 2)
        let site = MQA.run(["report", "meeting", "--all", "--db", db, "-f", "html", "-o", dir.file("site")])
        #expect(site.status == 0 && site.signal == 0, "\(site)")
    }

    /// A BOM that starts a file is skipped, as the docs say; one that
    /// starts a later line is data, and that line is rejected.
    @Test func aByteOrderMarkStartingTheFileIsSkipped() {
        let db = dir.file("store.sqlite")
        let lines = Lines.meeting("m-bom", reports: 3).split(separator: "\n").map(String.init)
        let text = "\u{FEFF}" + lines[0] + "\n" + lines[1] + "\n\u{FEFF}" + lines[2] + "\n"
        let r = MQA.run(["ingest", "--db", db, "--format", "json", dir.write("bom.ndjson", text)])
        #expect(r.status == 3, "\(r)")
        #expect(r.counts["events"] == 2, "\(r)")
        #expect(r.stderr.contains("bom.ndjson:3: not valid JSON: expected '{' at column 1"), "\(r)")
        #expect(!r.stderr.contains("bom.ndjson:1:"), "\(r)")
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Inputs read from standard input and pipes, against the built binary:
/// a slow pipe never holds the write lock, a closed stdin is no empty
/// input, a stdin already read into is the rest of the file, and a stream
/// that breaks off counts what was stored.
@Suite struct StandardInputTests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    /// A reads 40 lines from a pipe whose writer (this test) then holds
    /// back the rest. B, started meanwhile on the same store, finishes
    /// while A is still waiting: A holds the write lock only while it
    /// writes. (It used to hold it through the wait, and B died after 60 s
    /// with "database is locked".) B gets 45 s, less than the minute it
    /// would wait for a held lock; A's input ends only after B is done, so
    /// no timing decides the outcome.
    @Test func aSlowPipeDoesNotHoldTheWriteLock() throws {
        let db = dir.file("store.sqlite")
        let slowLines = Lines.meeting("m-slow", reports: 100).split(separator: "\n", omittingEmptySubsequences: true)
        let other = dir.write("other.ndjson", Lines.meeting("m-other", reports: 100))
        #expect(MQA.run(["ingest", "--db", db, dir.write("first.ndjson", Lines.meeting("m-first"))]).status == 0)
        let fifo = dir.file("slow.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let script = "exec \"$MQA\" ingest --db \"$D\" --format json - < \"$P\""
        let a = MQA.start(["-c", script], environment: ["P": fifo, "D": db, "MQA": MQA.binary], program: "/bin/sh")
        // Opening blocks until A's shell opens the other end.
        let pipe = try #require(FileHandle(forWritingAtPath: fifo))
        pipe.write(Data((slowLines.prefix(40).joined(separator: "\n") + "\n").utf8))
        let b = MQA.run(["ingest", "--db", db, other], timeout: 45)
        #expect(b.status == 0, "\(b)")
        #expect(!a.poll(), "A ended before its input did")
        pipe.write(Data((slowLines.dropFirst(40).joined(separator: "\n") + "\n").utf8))
        try pipe.close()
        let ra = a.wait()
        #expect(ra.status == 0, "\(ra)")
        #expect(ra.counts["events"] == 102, "\(ra)")
        let meetings = MQA.run(["meetings", "--db", db, "-f", "csv"])
        for id in ["m-first", "m-slow", "m-other"] { #expect(meetings.stdout.contains(id), "\(meetings)") }
    }

    /// `ingest - <&-`: SQLite put /dev/null on the free descriptor 0, and
    /// `-` read it: "files 1, lines 0", a store, exit 0.
    @Test func aClosedStandardInputIsNoEmptyInput() {
        let r = MQA.shell(#""$MQA" ingest --db "$D" - <&-"#, environment: ["D": db])
        #expect(r.status == 1 && r.stderr.contains("-: cannot open: standard input is closed"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    /// A script that read a header line, then handed standard input on:
    /// the file's size against the bytes read said "the file changed while
    /// it was read", exit 1.
    @Test func standardInputReadIntoIsTheRestOfTheFile() throws {
        let log = dir.write("log.ndjson", "# exported by the app\n" + Lines.meeting("m-1"))
        let r = MQA.shell(#"{ read -r header; "$MQA" ingest --db "$D" --format json -; } < "$L""#, environment: ["D": db, "L": log])
        #expect(r.status == 0 && r.stdout.contains("\"lines\":10,"), "\(r)")
    }

    /// A stream that breaks off after a checkpoint: what was stored was
    /// told as "no input could be read; nothing was stored", no summary.
    @Test func anInputThatBreaksOffCountsWhatItStored() throws {
        let log = dir.simulated("log.ndjson", meetings: 5, seed: 3)
        let cut = dir.file("cut.gz")
        let gz = MQA.shell(#"gzip -c "$L" > "$C.full" && head -c $(( $(stat -c %s "$C.full") * 3 / 4 )) "$C.full" > "$C""#,
                           environment: ["L": log, "C": cut])
        #expect(gz.status == 0, "\(gz)")
        let r = MQA.run(["ingest", "--db", db, "--format", "json", cut], environment: ["MQA_COMMIT_EVERY": "100"])
        #expect(r.status == 1 && r.stderr.contains("cut.gz: gzip stream is damaged"), "\(r)")
        #expect(!r.stderr.contains("no input could be read"), "\(r)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
        let stored = MQA.run(["export", "--db", db]).stdout.split(separator: "\n").count
        #expect(stored > 0 && object["events"] as? Int == stored, "\(r.stdout): \(stored) exported")
    }
}

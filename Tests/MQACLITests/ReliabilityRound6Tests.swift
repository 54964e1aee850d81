#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The sixth round of attacks on "exit 0 means everything asked for was
/// done", each against the built binary: outputs through the process's
/// own streams, an output naming an input, a demo folder holding the
/// user's files, names that are not UTF-8, and an input that breaks off.
@Suite struct ReliabilityRound6Tests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    /// `-o /dev/stdout` with stdout sent to a file: followed as a link, the
    /// target was a regular file, and the rename replaced the link itself
    /// (as root: /dev/stdout became a file for the whole machine; else
    /// "Permission denied"). `/dev/fd/1` is the same stream without the
    /// risk: the rename inside /proc failed, exit 1.
    @Test func anOutputThroughTheProcesssOwnStreamIsWrittenThere() {
        let log = dir.write("log.ndjson", Lines.meeting("m-1"))
        #expect(MQA.run(["ingest", "--db", db, log]).status == 0)
        let target = dir.file("fleet.md")
        let r = MQA.shell(#"echo first > "$T"; "$MQA" report fleet --db "$D" -o /dev/fd/1 >> "$T""#,
                          environment: ["T": target, "D": db])
        #expect(r.status == 0, "\(r)")
        let text = (try? String(contentsOfFile: target, encoding: .utf8)) ?? ""
        #expect(text.hasPrefix("first\n") && text.contains("m-1"), "appended after what the shell wrote: \(text)")
    }

    /// Other spellings of the streams, and a link to one: the same.
    @Test func theStreamsUnderOtherNamesAreWrittenThrough() {
        let log = dir.write("log.ndjson", Lines.meeting("m-1"))
        #expect(MQA.run(["ingest", "--db", db, log]).status == 0)
        let link = dir.file("to-stdout")
        #expect(symlink("/proc/self/fd/1", link) == 0)
        for name in ["/dev//fd/1", "/dev/./fd/1", link] {
            let target = dir.file("out.md")
            let r = MQA.shell(#""$MQA" report fleet --db "$D" -o "$N" > "$T""#, environment: ["D": db, "N": name, "T": target])
            let text = (try? String(contentsOfFile: target, encoding: .utf8)) ?? ""
            #expect(r.status == 0 && text.contains("m-1"), "\(name): \(r)")
        }
        var st = stat()
        #expect(lstat(link, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK, "the link is still a link")
        // Standard input is no output: said before the work.
        let input = MQA.run(["report", "fleet", "--db", db, "-o", "/dev/stdin"], stdin: log)
        #expect(input.status == 1 && input.stderr.contains("/dev/stdin: is not open for writing"), "\(input)")
        // A closed standard input under its device names is closed too.
        let closed = MQA.shell(#""$MQA" ingest --db "$D.2" /dev/stdin <&-"#, environment: ["D": db])
        #expect(closed.status == 1 && closed.stderr.contains("standard input is closed"), "\(closed)")
    }

    /// `ingest client.log -o client.log` replaced the log with its summary;
    /// `tune --grid g -o g` the grid with its results.
    @Test func anOutputNamingAnInputIsRefused() {
        let log = dir.write("client.log", Lines.meeting("m-1"))
        let r = MQA.run(["ingest", "--db", db, log, "-o", log])
        #expect(r.status == 64 && r.stderr.contains("is a file this command reads"), "\(r)")
        #expect((try? String(contentsOfFile: log, encoding: .utf8)) == Lines.meeting("m-1"))
        #expect(MQA.run(["ingest", "--db", db, log]).status == 0)
        let grid = dir.write("grid.json", #"{"upDwell": [1, 2]}"#)
        let link = dir.file("grid-link.json")
        #expect(symlink(grid, link) == 0)
        let t = MQA.run(["tune", "--db", db, "--grid", grid, "-o", link])
        #expect(t.status == 64 && t.stderr.contains("('\(grid)')"), "the same file under another name: \(t)")
        // A word that is no path (a meeting id, a query name) is no input,
        // even where an earlier run's output bears its name.
        for _ in 0..<2 {
            let m = MQA.shell(#"cd "$W" && "$MQA" report meeting m-1 --db "$D" -o m-1 && "$MQA" query meetings --db "$D" -o meetings"#,
                              environment: ["W": dir.path, "D": db])
            #expect(m.status == 0, "\(m)")
        }
        // A file in a folder the ingest reads, and the file on standard input.
        try? FileManager.default.createDirectory(atPath: dir.file("logs"), withIntermediateDirectories: true)
        let inFolder = dir.write("logs/a.ndjson", Lines.meeting("m-2"))
        let walked = MQA.run(["ingest", "--db", db, "-f", "json", "-r", dir.file("logs"), "-o", inFolder])
        #expect(walked.status == 64 && walked.stderr.contains("a folder this command reads"), "\(walked)")
        // Not there yet: a file the next `-r` would read all the same.
        let first = MQA.run(["ingest", "--db", db, "-f", "json", "-r", dir.file("logs"), "-o", dir.file("logs/summary.json")])
        #expect(first.status == 64 && first.stderr.contains("a folder this command reads"), "\(first)")
        let piped = MQA.run(["ingest", "--db", db, "-f", "json", "-", "-o", inFolder], stdin: inFolder)
        #expect(piped.status == 64 && piped.stderr.contains("(standard input)"), "\(piped)")
        #expect((try? String(contentsOfFile: inFolder, encoding: .utf8)) == Lines.meeting("m-2"))
    }

    /// Another program's database as the store: mqa's tables were written
    /// into it (by a reading command too, which set its version to 3), and
    /// one whose version was 70 was "written by a newer mqa".
    @Test func anotherProgramsDatabaseIsLeftAlone() throws {
        let other = dir.file("other.db")
        let sql = #"python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); print(c.execute("PRAGMA user_version").fetchone()[0], c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0], c.execute("PRAGMA journal_mode").fetchone()[0])' "$O" "$S""#
        let made = MQA.shell(sql, environment: ["O": other, "S": "CREATE TABLE t (x); PRAGMA user_version = 70;"])
        try #require(made.status == 0, "needs python3: \(made)")
        let log = dir.write("log.ndjson", Lines.meeting("m-1"))
        for args in [["ingest", "--db", other, log], ["meetings", "--db", other]] {
            let r = MQA.run(args)
            #expect(r.status == 1 && r.stderr.contains("is not an mqa store"), "\(args[0]): \(r)")
        }
        let left = MQA.shell(sql, environment: ["O": other, "S": ""])
        #expect(left.stdout == "70 1 delete\n", "not even the journal mode: \(left)")
    }

    /// The demo refused a file of the user's at the top of its folder but
    /// removed their files inside logs/ and reports/ with exit 0.
    @Test func theDemoKeepsTheUsersFilesInsideItsFolders() throws {
        let out = dir.file("demo")
        #expect(MQA.run(["demo", "--meetings", "2", "--out", out]).status == 0)
        try FileManager.default.createDirectory(atPath: out + "/logs/mine", withIntermediateDirectories: true)
        let mine = dir.write("demo/logs/mine/u.ndjson", Lines.meeting("m-mine"))
        let r = MQA.run(["demo", "--meetings", "2", "--out", out])
        #expect(r.status == 64 && r.stderr.contains("logs/mine/u.ndjson"), "\(r)")
        #expect(FileManager.default.fileExists(atPath: mine))
        try FileManager.default.removeItem(atPath: out + "/logs/mine")
        // Its own files, whatever the run before wrote, go as before.
        let again = MQA.run(["demo", "--meetings", "3", "--out", out])
        #expect(again.status == 0, "\(again)")
    }

    /// A name that is not UTF-8 reached the commands with U+FFFD in its
    /// place: two names became one file, and an output went to neither.
    @Test func aNameThatIsNotUTF8IsRefused() {
        let r = MQA.shell(#""$MQA" export --db "$D" -o "$(printf 'f\377.ndjson')""#, environment: ["D": db])
        #expect(r.status == 64 && r.stderr.contains("is not UTF-8 text"), "\(r)")
    }

    /// A store name of 248-255 bytes fits, but its `-wal` or `-journal`
    /// does not: the store was linked in, then could not be opened (or
    /// removed when nothing was stored), and stayed empty.
    @Test func aStoreNameTooLongForItsJournalIsRefusedFirst() {
        let log = dir.write("log.ndjson", Lines.meeting("m-1"))
        let store = dir.file(String(repeating: "s", count: 241) + ".sqlite")  // 248 bytes
        let r = MQA.run(["ingest", "--db", store, log])
        #expect(r.status == 1 && r.stderr.contains("with \"-journal\" added, longer than the 255"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: store))
        let env = MQA.shell(#"MQA_DB="$(printf 's\377.sqlite')" "$MQA" meetings"#)
        #expect(env.status == 64 && env.stderr.contains("MQA_DB"), "\(env)")
    }

    /// `ingest - <&-`: SQLite put /dev/null on the free descriptor 0, and
    /// `-` read it: "files 1, lines 0", a store, exit 0.
    @Test func aClosedStandardInputIsNoEmptyInput() {
        let r = MQA.shell(#""$MQA" ingest --db "$D" - <&-"#, environment: ["D": db])
        #expect(r.status == 1 && r.stderr.contains("-: cannot open: standard input is closed"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    /// Names that fit the 255 bytes a file name may have, but whose
    /// temporary names did not: 200 characters of a 2-byte letter kept for
    /// an output's, the whole name for a new store's.
    @Test func longNamesThatFitAreWritten() {
        let log = dir.write("log.ndjson", Lines.meeting("m-1"))
        let store = dir.file(String(repeating: "s", count: 235) + ".sqlite")  // 242 bytes
        #expect(MQA.run(["ingest", "--db", store, log]).status == 0)
        let out = dir.file(String(repeating: "é", count: 125) + ".md")  // 253 bytes
        let r = MQA.run(["report", "fleet", "--db", store, "-o", out])
        #expect(r.status == 0 && FileManager.default.fileExists(atPath: out), "\(r)")
    }

    /// `--config <(…)` was "not readable" (only regular files were read);
    /// `-o file/` "is a directory".
    @Test func aConfigFromAPipeIsReadAndAFileIsNoFolder() {
        let log = dir.write("log.ndjson", Lines.meeting("m-1"))
        #expect(MQA.run(["ingest", "--db", db, log]).status == 0)
        let piped = MQA.shell(#""$MQA" tiers --db "$D" --meeting m-1 --format json --config <(echo '{"hysteresis": 0.2}')"#,
                              environment: ["D": db])
        #expect(piped.status == 0 && piped.stdout.contains("\"hysteresis\": 0.2"), "\(piped)")
        let slash = MQA.run(["report", "fleet", "--db", db, "-o", log + "/"])
        #expect(slash.status == 1 && slash.stderr.contains("Not a directory"), "\(slash)")
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

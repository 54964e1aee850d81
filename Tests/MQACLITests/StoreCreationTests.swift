#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// Making a store, against the built binary: a killed creation's litter,
/// a failed ingest racing a good one for a new store, another program's
/// database under the store's name, and names at the 255-byte limit.
@Suite struct StoreCreationTests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    func export(_ db: String) -> String {
        let r = MQA.run(["export", "--db", db])
        #expect(r.status == 0, "\(r)")
        return r.stdout
    }

    /// A kill while the store was being made left `.NAME.creating-PID`
    /// files that only that pid would ever remove; the next creation of
    /// the store removes those of processes that no longer run.
    @Test func theLitterOfAKilledCreationIsRemovedByTheNext() throws {
        let folder = dir.file("litter")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let dead = "2147483000"  // beyond any pid_max: no such process
        for suffix in ["", "-wal", "-shm"] { dir.write("litter/.store.sqlite.creating-\(dead)\(suffix)", "x") }
        dir.write("litter/.other.sqlite.creating-\(dead)", "x")
        let f = dir.write("log.ndjson", Lines.meeting("m-1"))
        #expect(MQA.run(["ingest", "--db", folder + "/store.sqlite", f]).status == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }.sorted()
        #expect(left == [".other.sqlite.creating-\(dead)"], "another store's files are not this one's to remove: \(left)")
    }

    /// A's only input is damaged; B starts on the same new store moments
    /// later. A used to delete "the store it created", taking B's events
    /// with it (2 rounds in 5). Whatever the timing, B's events stay.
    @Test func aFailedIngestNeverRemovesAStoreAnotherIngestWrote() throws {
        let good = (0..<4).map { dir.write("good-\($0).ndjson", Lines.meeting("m-\($0)", reports: 300)) }
        let truncated = MQA.shell("cat \"$A\" \"$B\" | zstd -q -c | head -c 200 > \"$T\"",
                                  environment: ["A": good[0], "B": good[1], "T": dir.file("trunc.zst")])
        #expect(truncated.status == 0, "\(truncated)")
        let reference = dir.file("reference.sqlite")
        #expect(MQA.run(["ingest", "--db", reference] + good).status == 0)
        let expected = export(reference)

        for (round, delay) in [0, 2_000, 10_000, 30_000, 80_000, 150_000].enumerated() {
            let db = dir.file("race-\(round).sqlite")
            let a = MQA.start(["ingest", "--db", db, dir.file("trunc.zst")])
            usleep(useconds_t(delay))
            let b = MQA.run(["ingest", "--db", db] + good)
            let ra = a.wait()
            #expect(ra.status == 1, "A: \(ra)")
            #expect(b.status == 0, "round \(round) B: \(b)")
            #expect(FileManager.default.fileExists(atPath: db), "round \(round): B's store was removed")
            #expect(export(db) == expected, "round \(round)")
        }

        // Alone, a run that could read nothing leaves no store behind.
        let alone = dir.file("alone.sqlite")
        let r = MQA.run(["ingest", "--db", alone, dir.file("trunc.zst")])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no store was created"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: alone))
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
}

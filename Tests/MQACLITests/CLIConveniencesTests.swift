import Foundation
import Testing

/// The command line people already know: formats from the extension, in
/// any case, short options, `help CMD`, "did you mean", `mqa meetings`, id
/// prefixes, time filters, and honest answers about empty stores.
@Suite struct CLIConveniencesTests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    /// Three meetings a day apart: m-a (oldest) … m-c (newest), plus m-ab.
    func threeMeetings() {
        let day: Int64 = 86_400_000
        let f = dir.write("log.ndjson", Lines.meeting("m-aaa1", start: Lines.t0 - 3 * day)
            + Lines.meeting("m-bbb2", start: Lines.t0 - 2 * day) + Lines.meeting("m-ccc3", start: Lines.t0 - day))
        #expect(MQA.run(["ingest", "--db", db, f]).status == 0)
    }

    @Test func formatComesFromTheOutExtensionAndAnyCase() throws {
        threeMeetings()
        let html = dir.file("r.html")
        #expect(MQA.run(["report", "meeting", "m-aaa1", "--db", db, "-o", html]).status == 0)
        #expect(try String(contentsOfFile: html, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        let json = MQA.run(["report", "fleet", "--db", db, "--format", "JSON"])
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout.hasPrefix("{"), "\(json)")
        let csv = MQA.run(["report", "fleet", "--db", db, "-f", "csv", "-n", "1"])
        #expect(csv.stdout.split(separator: "\n").count == 2, "\(csv)")
    }

    @Test(arguments: [["help", "report"], ["help", "report", "fleet"], ["help", "ingest"], ["help", "meetings"],
                      ["meetings", "--help"], ["report", "--help"]])
    func helpExitsZero(args: [String]) {
        let r = MQA.run(args)
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("USAGE:"), "\(r)")
    }

    @Test func typosGetASuggestion() {
        let command = MQA.run(["reprot", "fleet"])
        #expect(command.status == 64)
        #expect(command.stderr.contains("did you mean 'report'?"), "\(command)")
        let option = MQA.run(["export", "--fromat", "csv"])
        #expect(option.status == 64)
        #expect(option.stderr.contains("did you mean '--format'?"), "\(option)")
    }

    @Test func meetingsAreListedNewestFirstAndPrefixesResolve() {
        threeMeetings()
        let r = MQA.run(["meetings", "--db", db, "--format", "csv"])
        #expect(r.status == 0, "\(r)")
        let ids = r.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[0] }
        #expect(ids == ["m-ccc3", "m-bbb2", "m-aaa1"], "\(r)")
        #expect(MQA.run(["ls", "--db", db]).status == 0)
        let byPrefix = MQA.run(["report", "meeting", "m-bb", "--db", db, "--format", "json"])
        #expect(byPrefix.status == 0, "\(byPrefix)")
        #expect(byPrefix.stdout.contains("\"meeting\" : \"m-bbb2\"") || byPrefix.stdout.contains("\"meeting\": \"m-bbb2\""), "\(byPrefix)")
        let ambiguous = MQA.run(["tiers", "--meeting", "m-", "--db", db])
        #expect(ambiguous.status == 1)
        #expect(ambiguous.stderr.contains("matches"), "\(ambiguous)")
    }

    @Test func sinceAndUntilFilterByStart() {
        threeMeetings()
        let since = Lines.t0 - 2 * 86_400_000
        let iso = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(since) / 1000))
        let fleet = MQA.run(["report", "fleet", "--db", db, "--since", iso, "--format", "csv"])
        #expect(fleet.status == 0, "\(fleet)")
        #expect(fleet.stdout.contains("m-bbb2") && fleet.stdout.contains("m-ccc3") && !fleet.stdout.contains("m-aaa1"), "\(fleet)")
        let listed = MQA.run(["meetings", "--db", db, "--until", iso, "--format", "csv"])
        #expect(listed.stdout.contains("m-aaa1") && !listed.stdout.contains("m-bbb2"), "\(listed)")
        let bad = MQA.run(["report", "fleet", "--db", db, "--since", "last tuesday"])
        #expect(bad.status == 64, "\(bad)")
    }

    @Test func emptyStoresAndFailedIngestsSaySo() {
        let empty = dir.write("empty.ndjson", "")
        #expect(MQA.run(["ingest", "--db", db, empty]).status == 0)
        for args in [["report", "fleet"], ["tune", "--grid", dir.write("g.json", #"{"hysteresis": [0, 0.1]}"#)]] {
            let r = MQA.run(args + ["--db", db])
            #expect(r.status == 1, "\(args): \(r)")
            #expect(r.stderr.contains("holds no meetings: the file ingested into it gave no event of one"), "\(r)")
            #expect(r.stdout.isEmpty, "\(r)")
        }
        let other = dir.file("never.sqlite")
        let failed = MQA.run(["ingest", "--db", other, dir.file("missing.ndjson")])
        #expect(failed.status == 1)
        #expect(!FileManager.default.fileExists(atPath: other), "a failed ingest left a store behind")
    }

    /// `ingest DIR` says how to read a folder; `ingest -r DIR` reads every
    /// file under it, in path order, hidden ones left out.
    @Test func ingestRecursiveReadsEveryFileUnderAFolder() throws {
        let logs = dir.file("logs")
        for sub in ["logs/a/b", "logs/.cache"] {
            try FileManager.default.createDirectory(atPath: dir.file(sub), withIntermediateDirectories: true)
        }
        dir.write("logs/a/b/m1.ndjson", Lines.meeting("m-r1"))
        dir.write("logs/a/m2.ndjson", Lines.meeting("m-r2"))
        dir.write("logs/.cache/m3.ndjson", Lines.meeting("m-r3"))
        dir.write("logs/.hidden.ndjson", Lines.meeting("m-r4"))
        let plain = MQA.run(["ingest", "--db", db, logs])
        #expect(plain.status == 1 && plain.stderr.contains("ingest -r \(logs)"), "\(plain)")
        let r = MQA.run(["ingest", "--db", db, "-r", logs, "-f", "json"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("\"files\": 2") || r.stdout.contains("\"files\":2"), "\(r.stdout)")
        let listed = MQA.run(["meetings", "--db", db, "-f", "csv"])
        #expect(listed.stdout.contains("m-r1") && listed.stdout.contains("m-r2"), "\(listed)")
        #expect(!listed.stdout.contains("m-r3") && !listed.stdout.contains("m-r4"), "\(listed)")
        try FileManager.default.createDirectory(atPath: dir.file("empty"), withIntermediateDirectories: true)
        let empty = MQA.run(["ingest", "--db", db, "--recursive", dir.file("empty")])
        #expect(empty.status == 64 && empty.stderr.contains("no files under this folder"), "\(empty)")
    }

    /// `-r` follows links to files and folders (a loop back up the tree is
    /// walked once) and never passes over what it cannot read: a link that
    /// leads nowhere is named and the run fails, the rest still stored.
    @Test func ingestRecursiveFollowsLinksAndNamesWhatItCannotRead() throws {
        let fm = FileManager.default
        for sub in ["in/a", "other/deep"] { try fm.createDirectory(atPath: dir.file(sub), withIntermediateDirectories: true) }
        dir.write("in/a/m1.ndjson", Lines.meeting("m-l1"))
        dir.write("other/m2.ndjson", Lines.meeting("m-l2"))
        dir.write("other/deep/m3.ndjson", Lines.meeting("m-l3"))
        try fm.createSymbolicLink(atPath: dir.file("in/a/m2.ndjson"), withDestinationPath: "../../other/m2.ndjson")
        try fm.createSymbolicLink(atPath: dir.file("in/more"), withDestinationPath: "../other/deep")
        try fm.createSymbolicLink(atPath: dir.file("in/a/up"), withDestinationPath: "..")
        let linked = MQA.run(["ingest", "--db", db, "-r", dir.file("in"), "-f", "json"])
        #expect(linked.status == 0, "\(linked)")
        let listed = MQA.run(["meetings", "--db", db, "-f", "csv"]).stdout
        #expect(["m-l1", "m-l2", "m-l3"].allSatisfy(listed.contains), "\(listed)")

        try fm.createSymbolicLink(atPath: dir.file("in/gone.ndjson"), withDestinationPath: "nowhere.ndjson")
        dir.write("in/a/m4.ndjson", Lines.meeting("m-l4"))
        let broken = MQA.run(["ingest", "--db", db, "-r", dir.file("in")])
        #expect(broken.status == 1, "\(broken)")
        #expect(broken.stderr.contains("Error: \(dir.file("in/gone.ndjson")): cannot read it (No such file or directory)"), "\(broken)")
        #expect(MQA.run(["meetings", "--db", db, "-f", "csv"]).stdout.contains("m-l4"))
        // Standard input can be read once only.
        let twice = MQA.run(["ingest", "--db", db, "-", "-"])
        #expect(twice.status == 64 && twice.stderr.contains("'-' (standard input) given twice"), "\(twice)")
        // Nor a pipe under two names: two readers would each get part of it.
        let fifo = dir.file("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let pipeTwice = MQA.run(["ingest", "--db", db, fifo, dir.file("./pipe")])
        #expect(pipeTwice.status == 64 && pipeTwice.stderr.contains("are the same pipe: it can be read only once"), "\(pipeTwice)")
    }

    /// A store kept in the folder of its logs is no input of `-r` (every run
    /// after the first failed on it as "binary"), and named as an input it
    /// is refused.
    @Test func theStoreIsNoInput() throws {
        try FileManager.default.createDirectory(atPath: dir.file("logs"), withIntermediateDirectories: true)
        dir.write("logs/m1.ndjson", Lines.meeting("m-s1"))
        let store = dir.file("logs/store.sqlite")
        for run in 1...2 {
            let r = MQA.run(["ingest", "--db", store, "-r", dir.file("logs"), "-f", "json"])
            #expect(r.status == 0, "run \(run): \(r)")
        }
        let named = MQA.run(["ingest", "--db", store, store])
        #expect(named.status == 64 && named.stderr.contains("is the store (--db), or one of its files: it cannot be an input"), "\(named)")
        // Not made yet (it would be before the input is read), or given as standard input.
        let fresh = dir.file("fresh.sqlite")
        let early = MQA.run(["ingest", "--db", fresh, dir.file("./fresh.sqlite")])
        #expect(early.status == 64 && early.stderr.contains("is the store (--db)"), "\(early)")
        let piped = MQA.run(["ingest", "--db", store, "-"], stdin: store)
        #expect(piped.status == 64 && piped.stderr.contains("standard input is the store (--db)"), "\(piped)")
        // A device is no pipe: /dev/null may be named twice.
        #expect(MQA.run(["ingest", "--db", dir.file("null.sqlite"), "/dev/null", "/dev/null"]).status == 0)
    }
}

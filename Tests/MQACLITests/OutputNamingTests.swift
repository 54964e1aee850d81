import Foundation
import Testing

/// What an output's name and a command's words promise: an `--out` whose
/// extension names a format the command does not write is refused, not
/// filled with another format; every command that prints results takes
/// `csv`; words a command would drop are usage errors.
@Suite struct OutputNamingTests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    func store() {
        let f = dir.write("log.ndjson", Lines.meeting("m-1"))
        #expect(MQA.run(["ingest", "--db", db, f]).status == 0)
    }

    @Test func anExtensionOfAnotherFormatIsRefused() throws {
        store()
        for (args, file) in [(["tiers", "--meeting", "m-1"], "t.html"), (["check"], "c.html"), (["export"], "e.json"),
                             (["meetings"], "m.html")] {
            let out = dir.file(file)
            let r = MQA.run(args + ["--db", db, "-o", out])
            #expect(r.status == 64, "\(args) \(r)")
            #expect(r.stderr.contains("Error: '--out' \(out) names the format"), "\(r)")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
        // Given explicitly, the format wins; an extension of no format is a name.
        #expect(MQA.run(["tiers", "--meeting", "m-1", "--db", db, "-f", "md", "-o", dir.file("t.html")]).status == 0)
        #expect(MQA.run(["tiers", "--meeting", "m-1", "--db", db, "-o", dir.file("t.txt")]).status == 0)
        #expect(MQA.run(["export", "--db", db, "-o", dir.file("e.jsonl")]).stdout.isEmpty)
        #expect(try String(contentsOfFile: dir.file("e.jsonl"), encoding: .utf8).hasPrefix("{\"ts\":"))
    }

    /// A batch's existing folder named like a format is a folder, not a format.
    @Test func anExistingFolderIsNoFormat() throws {
        store()
        let folder = dir.file("out.ndjson")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let r = MQA.run(["report", "meeting", "--all", "--db", db, "-o", folder])
        #expect(r.status == 0, "\(r)")
        #expect(FileManager.default.fileExists(atPath: folder + "/index.md"))
    }

    @Test func ingestAndCheckWriteCSV() throws {
        let f = dir.write("log.ndjson", Lines.meeting("m-1") + "not json\n")
        let ingest = MQA.run(["ingest", "--db", db, "-f", "csv", f])
        #expect(ingest.status == 3, "\(ingest)")
        #expect(ingest.stdout == "files,skippedFiles,failedFiles,lines,events,reports,rejected,duplicates,ignored\n1,0,0,11,10,8,1,0,0\n")
        let check = MQA.run(["check", "--db", db, "-o", dir.file("check.csv")])
        #expect(check.status == 0, "\(check)")
        #expect(try String(contentsOfFile: dir.file("check.csv"), encoding: .utf8) == "meeting,uid,table,chunk,reason\n")
    }

    @Test func aBatchIntoTheStoreIsAUsageError() {
        store()
        let r = MQA.run(["report", "meeting", "--all", "--db", db, "--out", db])
        #expect(r.status == 64 && r.stderr.contains("is the store"), "\(r)")
    }

    @Test func listingQueriesTakesNoQueryWords() {
        store()
        for extra in [["rejects"], ["--param", "a=b"], ["--since", "2026-01-01"]] {
            let r = MQA.run(["query", "--list", "--db", db] + extra)
            #expect(r.status == 64 && r.stderr.hasPrefix("Error: --list takes no"), "\(extra) \(r)")
        }
        #expect(MQA.run(["query", "--list", "--db", db]).status == 0)
    }

    @Test func helpOfHelp() {
        for words in [["help", "help"], ["help", "--help"], ["help", "-h"], ["help", "help", "-h"]] {
            let r = MQA.run(words)
            #expect(r.status == 0 && r.stdout.hasPrefix("OVERVIEW: ") && r.stdout.contains("USAGE: mqa help"), "\(words) \(r)")
        }
        // The flag after a subcommand's name adds nothing: its help.
        let r = MQA.run(["help", "ingest", "--help"])
        #expect(r.status == 0 && r.stdout.contains("USAGE: mqa ingest"), "\(r)")
        // Help wins over --version, as after `mqa`.
        #expect(MQA.run(["help", "--help", "--version"]).stdout.contains("USAGE: mqa help"))
        // Words no help is about are usage errors, not ignored.
        for (words, message) in [(["help", "ingest", "--bogus"], "unknown option '--bogus' for 'mqa help'"),
                                 (["help", "ingest", "meeting"], "unexpected argument 'meeting' after 'ingest'"),
                                 (["help", "report", "meeting", "x"], "unexpected argument 'x' after 'report meeting'")] {
            let bad = MQA.run(words)
            #expect(bad.status == 64 && bad.stderr.hasPrefix("Error: \(message)"), "\(words) \(bad)")
        }
        #expect(MQA.run(["help", "report", "meeting"]).status == 0 && MQA.run(["help", "ls"]).stdout.contains("USAGE: mqa meetings"))
    }

    /// The demo's reports read $MQA_TZ: an unknown zone is refused before
    /// the simulation and the ingest, not after them with half a demo written.
    @Test func theDemoRefusesAnUnknownZoneFirst() {
        let out = dir.file("demo")
        let r = MQA.run(["demo", "--out", out, "--meetings", "1"], environment: ["MQA_TZ": "Bogus/Zone"])
        #expect(r.status == 64 && r.stderr.hasPrefix("Error: MQA_TZ 'Bogus/Zone'"), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func simulateIntoAFileSaysWhy() {
        let file = dir.write("taken", "x")
        let r = MQA.run(["simulate", "--meetings", "1", "--out", file])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains(": Not a directory") && !r.stderr.contains("NSCocoaErrorDomain"), "\(r)")
    }

    /// The CDN issue carries numbers as every issue does: since when
    /// (the meeting's start) and for how many participants.
    @Test func theCDNIssueHasNumbers() throws {
        let cdn = Lines.meeting("m-cdn").replacingOccurrences(of: "\"engine\":\"sfu\"", with: "\"engine\":\"cdn\"")
            + Lines.meeting("m-cdn", uid: "bob").replacingOccurrences(of: "\"engine\":\"sfu\"", with: "\"engine\":\"cdn\"")
        let f = dir.write("cdn.ndjson", cdn)
        #expect(MQA.run(["ingest", "--db", db, f]).status == 0)
        let r = MQA.run(["report", "meeting", "m-cdn", "--db", db, "-f", "json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let issue = try #require((doc["issues"] as? [[String: Any]])?.first { $0["code"] as? String == "no_quality_data" })
        #expect(issue["ts"] as? Int == Int(Lines.t0) && issue["count"] as? Int == 2, "\(issue)")
    }
}

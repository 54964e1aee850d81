#if canImport(Glibc)
import Glibc
#endif
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
        let txt = MQA.run(["tiers", "--meeting", "m-1", "--db", db, "-o", dir.file("t.txt")])
        #expect(txt.status == 0 && txt.stderr.isEmpty, "\(txt)")
        // An extension that names no format: the default is written, and said.
        let pdf = MQA.run(["report", "fleet", "--db", db, "-o", dir.file("f.pdf")])
        #expect(pdf.status == 0 && pdf.stderr.contains("note: '.pdf' names no format mqa writes: \(dir.file("f.pdf")) gets md, the default"), "\(pdf)")
        #expect(try String(contentsOfFile: dir.file("f.pdf"), encoding: .utf8).hasPrefix("# "))
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

    /// A name that is not UTF-8 reached the commands with U+FFFD in its
    /// place: two names became one file, and an output went to neither.
    @Test func aNameThatIsNotUTF8IsRefused() {
        let r = MQA.shell(#""$MQA" export --db "$D" -o "$(printf 'f\377.ndjson')""#, environment: ["D": db])
        #expect(r.status == 64 && r.stderr.contains("is not UTF-8 text"), "\(r)")
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
}

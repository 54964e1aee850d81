import Foundation
import Testing

/// `mqa tune --partials` on shard stores, then `mqa tune --merge`, prints
/// exactly what `mqa tune` prints on one store of all the logs.
@Suite struct TunePartialsCLITests {
    static let grid = #"{"hysteresis": [0, 0.2], "upDwell": [1, 3], "mos": ["sdk", "emodel"]}"#

    /// The simulated log's lines grouped by meeting, in input order.
    func linesByMeeting(_ text: String) -> [(String, [Substring])] {
        var order: [String] = []
        var groups: [String: [Substring]] = [:]
        for line in text.split(separator: "\n") {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let meeting = object?["meeting"] as? String ?? "?"
            if groups[meeting] == nil { order.append(meeting) }
            groups[meeting, default: []].append(line)
        }
        return order.map { ($0, groups[$0]!) }
    }

    /// Partials are JSON: `-o p.csv` wrote JSON under a CSV name, exit 0.
    /// Now refused before any work, as `-f csv` was; `-f json` says the
    /// user means it, and `.json` is the plain case.
    @Test func partialsUnderAnotherFormatsNameAreRefused() throws {
        let dir = Scratch()
        let db = dir.file("s.sqlite")
        #expect(MQA.run(["ingest", "--db", db, dir.simulated("a.ndjson", meetings: 2, seed: 1)]).status == 0)
        let grid = dir.write("grid.json", Self.grid)
        for (command, name) in [(["tune", "--grid", grid], "t.csv"), (["report", "cohorts"], "c.md"), (["report", "trends"], "r.html")] {
            let r = MQA.run(command + ["--db", db, "--partials", "-o", dir.file(name)])
            #expect(r.status == 64 && r.stderr.contains("writes JSON only"), "\(command): \(r)")
            #expect(!FileManager.default.fileExists(atPath: dir.file(name)))
            let meant = MQA.run(command + ["--db", db, "--partials", "-o", dir.file(name), "-f", "json"])
            #expect(meant.status == 0 && FileManager.default.fileExists(atPath: dir.file(name)), "\(command): \(meant)")
            let plain = MQA.run(command + ["--db", db, "--partials", "-o", dir.file(name + ".json")])
            #expect(plain.status == 0, "\(command): \(plain)")
            let given = MQA.run(command + ["--db", db, "--partials", "-f", "csv"])
            #expect(given.status == 64 && given.stderr.contains("must be one of json (with --partials), got 'csv'"), "\(command): \(given)")
        }
    }

    @Test func mergedShardsEqualOneStore() throws {
        let dir = Scratch()
        let all = dir.simulated("all.ndjson", meetings: 9, seed: 4)
        let grid = dir.write("grid.json", Self.grid)
        #expect(MQA.run(["ingest", "--db", dir.file("one.sqlite"), all]).status == 0)
        let text = try String(contentsOfFile: all, encoding: .utf8)
        let groups = linesByMeeting(text)
        #expect(groups.count == 9)
        var partials: [String] = []
        for shard in 0..<3 {
            let mine = groups.enumerated().filter { $0.offset % 3 == shard }.flatMap { $0.element.1 }
            let log = dir.write("shard\(shard).ndjson", mine.joined(separator: "\n") + "\n")
            let db = dir.file("shard\(shard).sqlite")
            #expect(MQA.run(["ingest", "--db", db, log]).status == 0)
            let p = MQA.run(["tune", "--db", db, "--grid", grid, "--partials"])
            #expect(p.status == 0, "\(p)")
            partials.append(dir.write("p\(shard).json", p.stdout))
        }
        for format in ["json", "md", "csv"] {
            let single = MQA.run(["tune", "--db", dir.file("one.sqlite"), "--grid", grid, "--format", format])
            let merged = MQA.run(["tune", "--merge"] + partials.reversed() + ["--format", format])
            #expect(single.status == 0 && merged.status == 0, "\(merged)")
            #expect(!single.stdout.isEmpty)
            #expect(merged.stdout == single.stdout, "format \(format)")
        }
        // A merge reads no store: an unusable $MQA_DB does not stop it
        // from writing its --out (it merged, then failed on the check).
        for db in ["", ":memory:"] {
            let out = dir.file("merged-\(db.count).md")
            let r = MQA.run(["tune", "--merge"] + partials + ["--out", out], environment: ["MQA_DB": db])
            #expect(r.status == 0 && FileManager.default.fileExists(atPath: out), "\(r)")
        }
        // The same partials twice (a copy too) would count their meetings twice.
        let copy = dir.write("copy.json", try String(contentsOfFile: partials[0], encoding: .utf8))
        let twice = MQA.run(["tune", "--merge", partials[0], partials[1], copy])
        #expect(twice.status == 1 && twice.stderr.contains("'\(copy)' holds the same partials as '\(partials[0])'"), "\(twice)")
        // A store that overlaps a shard (here: all of it) shares meetings
        // with it: refused, naming one meeting and both files.
        let whole = MQA.run(["tune", "--db", dir.file("one.sqlite"), "--grid", grid, "--partials"])
        let wide = dir.write("all.json", whole.stdout)
        let overlap = MQA.run(["tune", "--merge", partials[1], wide])
        #expect(overlap.status == 1 && overlap.stderr.contains("' is in '\(partials[1])' and '\(wide)': each meeting must be"),
                "\(overlap)")
    }

    @Test(arguments: [
        (["tune", "--merge"], "at least one partials file"),
        (["tune", "--merge", "p.json", "--grid", "g.json"], "'--grid' does not go with --merge"),
        (["tune", "--merge", "p.json", "--partials"], "not both"),
        (["tune", "p.json", "--grid", "g.json"], "only with --merge"),
        (["tune", "--grid", "g.json", "--partials", "--format", "md"], "'--format' must be one of json"),
    ])
    func usageErrors(args: [String], message: String) {
        let r = MQA.run(args)
        #expect(r.status == 64, "mqa \(args): \(r)")
        #expect(r.stderr.contains(message), "mqa \(args): \(r)")
    }

    @Test func aFileThatIsNotPartialsFails() {
        let dir = Scratch()
        let bad = dir.write("bad.json", #"{"hello": 1}"#)
        let r = MQA.run(["tune", "--merge", bad])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("not a tuning partials file"), "\(r)")
    }

    /// A shard whose store has no meeting in the window writes partials of
    /// nothing (it failed "no meeting … started", so a sharded job had to
    /// tell empty shards apart); two such files are no duplicate, they add
    /// nothing to a merge, and a merge of nothing but them is refused.
    @Test func aShardWithoutMeetingsInTheWindowWritesZeros() throws {
        let dir = Scratch()
        let grid = dir.write("grid.json", Self.grid)
        let db = dir.file("one.sqlite")
        #expect(MQA.run(["ingest", "--db", db, dir.simulated("all.ndjson", meetings: 3, seed: 4)]).status == 0)
        let full = dir.write("full.json", MQA.run(["tune", "--db", db, "--grid", grid, "--partials"]).stdout)
        let empty = MQA.run(["tune", "--db", db, "--grid", grid, "--partials", "--since", "2099-01-01"])
        #expect(empty.status == 0, "\(empty)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(empty.stdout.utf8)) as? [String: Any])
        #expect(object["meetings"] as? Int == 0)
        let e1 = dir.write("e1.json", empty.stdout), e2 = dir.write("e2.json", empty.stdout)
        let single = MQA.run(["tune", "--db", db, "--grid", grid, "--format", "json"])
        let merged = MQA.run(["tune", "--merge", e1, full, e2, "--format", "json"])
        #expect(merged.status == 0, "\(merged)")
        #expect(merged.stdout == single.stdout)
        let nothing = MQA.run(["tune", "--merge", e1, e2])
        #expect(nothing.status == 1 && nothing.stderr.contains("the partials hold no meeting"), "\(nothing)")
        // --top ranks, which partials do not: said, not ignored; --by at a
        // merge is told for what it is (partials hold no cohorts).
        let top = MQA.run(["tune", "--db", db, "--grid", grid, "--partials", "--top", "3"])
        #expect(top.status == 64 && top.stderr.contains("'--top' does not go with --partials"), "\(top)")
        let by = MQA.run(["tune", "--merge", full, "--by", "netType"])
        #expect(by.status == 64 && by.stderr.contains("partials hold no cohorts"), "\(by)")
        // Without --partials an empty window stays an error.
        #expect(MQA.run(["tune", "--db", db, "--grid", grid, "--since", "2099-01-01"]).status == 1)
        // The cohort partials likewise.
        let cohortsEmpty = MQA.run(["report", "cohorts", "--db", db, "--partials", "--since", "2099-01-01"])
        #expect(cohortsEmpty.status == 0, "\(cohortsEmpty)")
        let c0 = dir.write("c0.json", cohortsEmpty.stdout)
        let cFull = dir.write("cfull.json", MQA.run(["report", "cohorts", "--db", db, "--partials"]).stdout)
        let cSingle = MQA.run(["report", "cohorts", "--db", db, "--by", "platform", "-f", "json"])
        let cMerged = MQA.run(["report", "cohorts", "--merge", c0, cFull, "--by", "platform", "-f", "json"])
        #expect(cMerged.status == 0 && cMerged.stdout == cSingle.stdout, "\(cMerged)")
        let cNothing = MQA.run(["report", "cohorts", "--merge", c0, "--by", "platform"])
        #expect(cNothing.status == 1 && cNothing.stderr.contains("the partials hold no meeting"), "\(cNothing)")
        // A store with no meeting at all (only rejected lines) likewise.
        let bare = dir.file("bare.sqlite")
        #expect(MQA.run(["ingest", "--db", bare, dir.write("bad.ndjson", "not json\n")]).status == 3)
        let bareTune = MQA.run(["tune", "--db", bare, "--grid", grid, "--partials"])
        #expect(bareTune.status == 0 && bareTune.stdout.contains("\"meetings\":0"), "\(bareTune)")
        let bareCohorts = MQA.run(["report", "cohorts", "--db", bare, "--partials"])
        #expect(bareCohorts.status == 0, "\(bareCohorts)")
        #expect(MQA.run(["tune", "--db", bare, "--grid", grid]).status == 1)
    }

    /// A config whose tier is bad from the first report covers every stall
    /// without one alarm and is alone on the Pareto front: the md says
    /// what such a config is (the front was sold as "no other config
    /// beats" with no word of it).
    @Test func aFrontConfigWithoutAlarmsIsExplained() throws {
        let dir = Scratch()
        let db = dir.file("s.sqlite")
        #expect(MQA.run(["ingest", "--db", db, dir.simulated("all.ndjson", meetings: 4, seed: 3)]).status == 0)
        let silent = dir.write("silent.json", #"{"thresholds": [[4, 3.6, 3.1, 2.6], [10, 9, 8, 7]]}"#)
        let r = MQA.run(["tune", "--db", db, "--grid", silent])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("1 config on the front (#2) covers stalls without raising one alarm"), "\(r.stdout)")
        // Only the rows shown are named.
        let cut = MQA.run(["tune", "--db", db, "--grid", silent, "--top", "1"])
        #expect(cut.status == 0 && !cut.stdout.contains("without raising one alarm"), "\(cut.stdout)")
        let plain = MQA.run(["tune", "--db", db, "--grid", dir.write("plain.json", Self.grid)])
        #expect(plain.status == 0 && !plain.stdout.contains("without raising one alarm"), "\(plain.stdout)")
        // In CSV a string value is itself (it read as a quoted JSON string).
        let csv = MQA.run(["tune", "--db", db, "--grid", dir.file("plain.json"), "-f", "csv"])
        #expect(csv.stdout.contains(",emodel,") && !csv.stdout.contains("\"emodel\""), "\(csv.stdout)")
        let byCSV = MQA.run(["tune", "--db", db, "--grid", dir.file("plain.json"), "--by", "platform", "-f", "csv"])
        #expect(byCSV.stdout.contains(",emodel,") && !byCSV.stdout.contains("\"emodel\""), "\(byCSV.stdout)")
    }
}

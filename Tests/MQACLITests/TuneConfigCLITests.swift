import Foundation
import Testing

/// `mqa tune --config BASE`: the keys the grid leaves out take BASE's
/// values, so a sweep around a tuned config needs no grid of one-candidate
/// lists; partials carry the base to the merge, which refuses two bases.
@Suite struct TuneConfigCLITests {
    static let grid = #"{"hysteresis": [0, 0.2], "upDwell": [1, 3]}"#
    static let base = #"{"thresholds": [4.3, 4.0, 3.5, 3.0], "downDwell": 2}"#
    /// The same sweep spelt out: the base's keys as one-candidate lists.
    static let spelt = #"{"hysteresis": [0, 0.2], "upDwell": [1, 3], "thresholds": [[4.3, 4.0, 3.5, 3.0]], "downDwell": [2]}"#

    var fleet: (dir: Scratch, one: String, partials: [String]) { CohortPartialsCLITests.fleet }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theBaseFillsTheKeysTheGridLeavesOut() throws {
        let grid = fleet.dir.write("tc-grid.json", Self.grid), base = fleet.dir.write("tc-base.json", Self.base)
        let spelt = fleet.dir.write("tc-spelt.json", Self.spelt)
        let based = MQA.run(["tune", "--db", fleet.one, "--grid", grid, "--config", base, "-f", "json"])
        let long = MQA.run(["tune", "--db", fleet.one, "--grid", spelt, "-f", "json"])
        let plain = MQA.run(["tune", "--db", fleet.one, "--grid", grid, "-f", "json"])
        #expect(based.status == 0 && long.status == 0 && plain.status == 0, "\(based)")
        let a = try json(based.stdout), b = try json(long.stdout), c = try json(plain.stdout)
        let rows = try #require(a["configs"] as? [[String: Any]])
        #expect(rows.count == 4)
        // Every config and score as the spelt-out grid's, to the bit.
        #expect((a["configs"] as? NSArray) == (b["configs"] as? NSArray))
        #expect((a["configs"] as? NSArray) != (c["configs"] as? NSArray))
        for row in rows {
            let config = try #require(row["config"] as? [String: Any])
            #expect(config["thresholds"] as? [Double] == [4.3, 4.0, 3.5, 3.0] && config["downDwell"] as? Int == 2)
        }
        #expect((a["base"] as? [String: Any])?["downDwell"] as? Int == 2 && b["base"] == nil)
        let md = MQA.run(["tune", "--db", fleet.one, "--grid", grid, "--config", base])
        #expect(md.stdout.contains("The keys the grid leaves out are --config's: thresholds [4.3,4,3.5,3], downDwell 2."), "\(md)")
        let byCohort = MQA.run(["tune", "--db", fleet.one, "--grid", grid, "--config", base, "--by", "netType", "-f", "json"])
        #expect(byCohort.status == 0 && byCohort.stdout.contains("\"downDwell\": 2"), "\(byCohort)")
    }

    /// A base's value of a key the grid sweeps is not used: it is left
    /// out of `base`, and bases differing only there are one base.
    @Test func aBaseKeyTheGridSweepsIsNotPartOfTheBase() throws {
        let grid = fleet.dir.write("tc-grid.json", Self.grid)
        let swept = fleet.dir.write("tc-swept.json", #"{"hysteresis": 0.3}"#)
        let plain = MQA.run(["tune", "--db", fleet.one, "--grid", grid, "-f", "json"])
        let given = MQA.run(["tune", "--db", fleet.one, "--grid", grid, "--config", swept, "-f", "json"])
        #expect(given.status == 0 && given.stdout == plain.stdout, "\(given)")
        let p = MQA.run(["tune", "--db", fleet.dir.file("shard0.sqlite"), "--grid", grid, "--config", swept, "--partials"])
        #expect(p.status == 0 && p.stdout.contains("\"mqaTunePartials\":1") && !p.stdout.contains("\"base\""), "\(p)")
        // The order of a report's keys: the base right after the schema.
        let based = MQA.run(["tune", "--db", fleet.one, "--grid", grid, "--config", fleet.dir.write("tc-base.json", Self.base),
                             "-f", "json"])
        #expect(based.stdout.hasPrefix("{\n  \"schema\": \"mqa.tune/1\",\n  \"base\": {"), "\(based.stdout.prefix(80))")
    }

    @Test func partialsCarryTheBaseToTheMerge() throws {
        let grid = fleet.dir.write("tc-grid.json", Self.grid), base = fleet.dir.write("tc-base.json", Self.base)
        var parts: [String] = [], plainParts: [String] = []
        for shard in 0..<2 {
            let db = fleet.dir.file("shard\(shard).sqlite")
            let p = MQA.run(["tune", "--db", db, "--grid", grid, "--config", base, "--partials"])
            #expect(p.status == 0 && p.stdout.contains("\"mqaTunePartials\":2"), "\(p)")
            parts.append(fleet.dir.write("tc-p\(shard).json", p.stdout))
            let q = MQA.run(["tune", "--db", db, "--grid", grid, "--partials"])
            #expect(q.status == 0 && q.stdout.contains("\"mqaTunePartials\":1") && !q.stdout.contains("\"base\""), "\(q)")
            plainParts.append(fleet.dir.write("tc-q\(shard).json", q.stdout))
        }
        for format in ["json", "md", "csv"] {
            let single = MQA.run(["tune", "--db", fleet.one, "--grid", grid, "--config", base, "-f", format])
            let merged = MQA.run(["tune", "--merge"] + parts.reversed() + ["-f", format])
            #expect(single.status == 0 && merged.status == 0 && !single.stdout.isEmpty, "\(merged)")
            #expect(merged.stdout == single.stdout, "\(format)")
        }
        let mixed = MQA.run(["tune", "--merge", parts[0], plainParts[1]])
        #expect(mixed.status == 1 && mixed.stderr.contains("was made with another --config than"), "\(mixed)")
        let given = MQA.run(["tune", "--merge", "--config", base] + parts)
        #expect(given.status == 64 && given.stderr.contains("'--config' does not go with --merge"), "\(given)")
    }
}

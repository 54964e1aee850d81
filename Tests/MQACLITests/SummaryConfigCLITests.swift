import Foundation
import Testing

/// `--config` on the commands that read the summaries ingest keeps under
/// the default config (`report cohorts`, `compare`, `report trends`,
/// `meetings`): their time at poor/bad, MOS and scores are the config's,
/// as `report meeting` and `report fleet` have them; the defaults given
/// explicitly change nothing; cohort partials carry their config to the
/// merge, which refuses to add up two configs.
@Suite struct SummaryConfigCLITests {
    static let strict = #"{"thresholds": [4.4, 4.2, 4.0, 3.8], "coldStartMs": 8000}"#

    /// The partials suite's fleet: one store, and two stores splitting it.
    var fleet: (dir: Scratch, one: String, partials: [String]) { CohortPartialsCLITests.fleet }

    func config(_ text: String, _ name: String) -> String { fleet.dir.write(name, text) }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Per engine, Σ poor+bad over Σ known tier time of every participant
    /// of `report meeting --config`: what the cohorts must say.
    @Test func lowTierShareIsTheMeetingReportsUnderTheConfig() throws {
        let path = config(Self.strict, "strict.json")
        let list = MQA.run(["meetings", "--db", fleet.one, "-f", "json"])
        let ids = try #require(try json(list.stdout)["list"] as? [[String: Any]]).compactMap { $0["meeting"] as? String }
        #expect(ids.count == 16)
        var low: [String: Double] = [:], known: [String: Double] = [:]
        for id in ids {
            let r = MQA.run(["report", "meeting", id, "--db", fleet.one, "--config", path, "-f", "json"])
            let m = try json(r.stdout)
            let engine = try #require(m["engine"] as? String)
            guard m["qualityData"] as? Bool == true else { continue }
            for p in try #require(m["participants"] as? [[String: Any]]) {
                let t = try #require(p["tierMs"] as? [String: Double])
                low[engine, default: 0] += t["poor"]! + t["bad"]!
                known[engine, default: 0] += ["excellent", "good", "fair", "poor", "bad"].reduce(0) { $0 + t[$1]! }
            }
        }
        let r = MQA.run(["report", "cohorts", "--by", "engine", "--db", fleet.one, "--config", path, "-f", "json"])
        #expect(r.status == 0, "\(r)")
        let cohorts = try #require(try json(r.stdout)["cohorts"] as? [[String: Any]])
        var checked = 0
        for c in cohorts {
            let engine = try #require(c["value"] as? String)
            guard let k = known[engine], k > 0 else { continue }
            let share = try #require(c["lowTierShare"] as? Double)
            #expect(abs(share - low[engine]! / k) <= 0.5e-5, "\(engine): \(share) vs \(low[engine]! / k)")
            checked += 1
        }
        #expect(checked >= 2)
    }

    /// Stricter thresholds put more time at poor/bad; stalls do not move.
    @Test func aStricterConfigRaisesTheLowTierShareOnly() throws {
        let path = config(Self.strict, "strict.json")
        let plain = MQA.run(["report", "cohorts", "--by", "platform", "--db", fleet.one, "-f", "json"])
        let strict = MQA.run(["report", "cohorts", "--by", "platform", "--db", fleet.one, "--config", path, "-f", "json"])
        #expect(plain.status == 0 && strict.status == 0, "\(strict)")
        let a = try json(plain.stdout), b = try json(strict.stdout)
        #expect(a["config"] == nil)
        let thresholds = try #require((b["config"] as? [String: Any])?["thresholds"] as? [Double])
        #expect(thresholds == [4.4, 4.2, 4.0, 3.8])
        let before = Dictionary(uniqueKeysWithValues: try #require(a["cohorts"] as? [[String: Any]]).map { ($0["value"] as! String, $0) })
        var raised = 0
        for c in try #require(b["cohorts"] as? [[String: Any]]) {
            let old = try #require(before[c["value"] as! String])
            #expect(c["stallRate"] as? Double == old["stallRate"] as? Double)
            let x = try #require(c["lowTierShare"] as? Double), y = try #require(old["lowTierShare"] as? Double)
            #expect(x >= y)
            if x > y { raised += 1 }
        }
        #expect(raised >= 2)
        let md = MQA.run(["report", "cohorts", "--by", "platform", "--db", fleet.one, "--config", path])
        #expect(md.stdout.contains("Tier config (--config): thresholds [4.4,4.2,4,3.8], coldStartMs 8000;"), "\(md)")
    }

    /// The defaults, spelt out, are the defaults: the same bytes.
    @Test(arguments: [["report", "cohorts", "--by", "sdkVersion"], ["report", "trends", "--by", "netType"],
                      ["compare", "--by", "sdkVersion", "5.2.3", "5.3.0"]])
    func theDefaultsGivenChangeNothing(command: [String]) {
        let path = config(#"{"hysteresis": 0.1, "upDwell": 2}"#, "defaults.json")
        for format in ["json", "md"] {
            let plain = MQA.run(command + ["--db", fleet.one, "-f", format])
            let given = MQA.run(command + ["--db", fleet.one, "--config", path, "-f", format])
            #expect(plain.status == given.status && !plain.stdout.isEmpty, "\(given)")
            #expect(given.stdout == plain.stdout, "\(command) \(format)")
        }
    }

    /// Partials made under a config merge into what one store gives under it.
    @Test func partialsCarryTheirConfigToTheMerge() throws {
        let path = config(Self.strict, "strict.json")
        var parts: [String] = []
        for shard in 0..<2 {
            let p = MQA.run(["report", "cohorts", "--db", fleet.dir.file("shard\(shard).sqlite"), "--config", path, "--partials"])
            #expect(p.status == 0, "\(p)")
            #expect(p.stdout.contains("\"coldStartMs\":8000") && p.stdout.hasPrefix("{\"schema\":\"mqa.cohortPartials/4\""), "\(p)")
            parts.append(fleet.dir.write("strict\(shard).json", p.stdout))
        }
        for command in [["report", "cohorts", "--by", "platform"], ["report", "trends", "--by", "sdkVersion"],
                        ["compare", "--by", "sdkVersion", "5.2.3", "5.3.0"]] {
            let single = MQA.run(command + ["--db", fleet.one, "--config", path, "-f", "json"])
            let merged = MQA.run(command + ["--merge"] + parts + ["-f", "json"])
            #expect(single.status == merged.status && single.stdout.contains("\"coldStartMs\": 8000"), "\(merged)")
            #expect(merged.stdout == single.stdout, "\(command)")
        }
        // A default shard and a strict one add up to no config at all.
        let mixed = MQA.run(["report", "cohorts", "--by", "platform", "--merge", parts[0], fleet.partials[1]])
        #expect(mixed.status == 1 && mixed.stderr.contains("were made under different tier configs")
                && mixed.stderr.contains("strict0.json"), "\(mixed)")
        // An mqa that reads no config must refuse version 4, not merge it
        // as the defaults'; one that does refuses a config in version 3.
        let text = try String(contentsOfFile: parts[0], encoding: .utf8)
        let v3 = fleet.dir.write("strict-v3.json", text.replacingOccurrences(of: "cohortPartials/4\",\"mqaCohortPartials\":4",
                                                                               with: "cohortPartials/3\",\"mqaCohortPartials\":3"))
        let old = MQA.run(["report", "cohorts", "--by", "platform", "--merge", v3])
        #expect(old.status == 1 && old.stderr.contains("\"config\" in a file of version 3"), "\(old)")
        let both = MQA.run(["report", "cohorts", "--by", "platform", "--merge", parts[0], "--config", path])
        #expect(both.status == 64 && both.stderr.contains("'--config' does not go with --merge"), "\(both)")
    }

    /// The commands with nothing to work out again under a config refuse
    /// it, saying why and which commands take it.
    @Test(arguments: [(["export"], "this command shows nothing that depends on the tier config"),
                      (["check"], "this command shows nothing that depends on the tier config"),
                      (["simulate"], "this command shows nothing that depends on the tier config"),
                      (["query", "--list"], "named queries read the summaries ingest keeps, which are of the default tier config"),
                      (["demo"], "the demo shows the default tier config; run the reports on its store with --config")])
    func commandsWithoutAConfigSayWhy(command: [String], why: String) {
        let r = MQA.run(command + ["--config", config(Self.strict, "strict.json")])
        #expect(r.status == 64 && r.stderr.contains("unknown option '--config': \(why) (tiers, report, meetings, compare and "
                                                     + "tune take it)"), "\(r)")
    }

    @Test func aBadConfigIsAUsageErrorNamingTheFile() {
        let path = config(#"{"thresholds": [1, 2, 3, 4]}"#, "bad.json")
        for command in [["report", "cohorts", "--by", "platform"], ["report", "trends"], ["compare", "--by", "platform", "ios", "web"]] {
            let r = MQA.run(command + ["--db", fleet.one, "--config", path])
            #expect(r.status == 64 && r.stderr.contains("bad.json") && r.stderr.contains("thresholds"), "\(r)")
        }
    }

    /// `meetings --config` scores each meeting as `report fleet --config` does.
    @Test func meetingScoresAreTheFleetsUnderTheConfig() throws {
        let path = config(Self.strict, "strict.json")
        func scores(_ args: [String], _ key: String) throws -> [String: Double] {
            let r = MQA.run(args + ["--db", fleet.one, "-f", "json"])
            #expect(r.status == 0, "\(r)")
            let rows = try #require(try json(r.stdout)[key] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["meeting"] as! String, $0["score"] as! Double) })
        }
        let fleetScores = try scores(["report", "fleet", "--config", path], "ranked")
        let listed = try scores(["meetings", "--config", path], "list")
        let plain = try scores(["meetings"], "list")
        #expect(listed.count == 16 && listed == fleetScores)
        #expect(listed != plain)
        let md = MQA.run(["meetings", "--db", fleet.one, "--config", path, "-n", "2"])
        #expect(md.stdout.hasPrefix("Tier config (--config): thresholds"), "\(md)")
    }

    /// A site made under a config has its cohort and trend pages under
    /// it too (they read the default-config summaries before).
    @Test func aSitesCohortPagesAreUnderItsConfig() throws {
        let path = config(Self.strict, "strict.json")
        let site = fleet.dir.file("site-strict")
        let r = MQA.run(["report", "meeting", "--all", "--db", fleet.one, "--config", path, "-f", "html", "--out", site],
                        timeout: 300)
        #expect(r.status == 0, "\(r)")
        let page = try String(contentsOfFile: site + "/cohorts.html", encoding: .utf8)
        let trends = try String(contentsOfFile: site + "/trends.html", encoding: .utf8)
        let people = try String(contentsOfFile: site + "/participants.html", encoding: .utf8)
        for (name, text) in [("cohorts", page), ("trends", trends), ("participants", people)] {
            #expect(text.contains("Tier config (--config): thresholds"), "\(name).html says no config")
        }
        // The poor/bad cells of the md table, as the page writes them.
        func shares(_ args: [String]) -> [String] {
            let md = MQA.run(["report", "cohorts", "--by", "sdkVersion", "--db", fleet.one] + args).stdout
            return md.split(separator: "\n").filter { $0.hasPrefix("| 5.") }.map {
                $0.split(separator: "|")[5].trimmingCharacters(in: .whitespaces)
            }
        }
        let strict = shares(["--config", path]), plain = shares([])
        #expect(!strict.isEmpty && strict.allSatisfy(page.contains), "\(strict)")
        #expect(!plain.filter { !strict.contains($0) }.contains(where: page.contains))
    }
}

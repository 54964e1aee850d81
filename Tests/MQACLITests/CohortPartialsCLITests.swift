import Foundation
import Testing

/// `mqa report cohorts --partials` / `report trends --partials` on stores of
/// disjoint meetings, then `--merge`, print exactly what one store of all
/// the logs prints: figures, intervals, ranking, in every format.
@Suite struct CohortPartialsCLITests {
    /// One store of every meeting, two stores splitting them (meetings
    /// whole, alternately), and each split store's partials file.
    nonisolated(unsafe) static let fleet: (dir: Scratch, one: String, partials: [String]) = {
        let dir = Scratch("cohort-partials")
        let all = dir.simulated("all.ndjson", meetings: 16, seed: 3)
        let one = dir.file("one.sqlite")
        precondition(MQA.run(["ingest", "--db", one, all], timeout: 300).status == 0)
        let text = try! String(contentsOfFile: all, encoding: .utf8)
        let groups = TunePartialsCLITests().linesByMeeting(text)
        precondition(groups.count == 16)
        var partials: [String] = []
        for shard in 0..<2 {
            let mine = groups.enumerated().filter { $0.offset % 2 == shard }.flatMap { $0.element.1 }
            let log = dir.write("shard\(shard).ndjson", mine.joined(separator: "\n") + "\n")
            let db = dir.file("shard\(shard).sqlite")
            precondition(MQA.run(["ingest", "--db", db, log], timeout: 300).status == 0)
            let p = MQA.run(["report", "cohorts", "--db", db, "--partials"])
            precondition(p.status == 0, "\(p)")
            partials.append(dir.write("p\(shard).json", p.stdout))
        }
        return (dir, one, partials)
    }()

    @Test(arguments: [("sdkVersion", "json"), ("netType", "json"), ("engine", "json"), ("platform", "md"),
                      ("sdkVersion", "csv"), ("device", "html")])
    func mergedCohortsEqualOneStore(field: String, format: String) {
        let f = Self.fleet
        let single = MQA.run(["report", "cohorts", "--db", f.one, "--by", field, "-f", format])
        // In the other order: the merge puts meetings in the store's order.
        let merged = MQA.run(["report", "cohorts", "--merge"] + f.partials.reversed() + ["--by", field, "-f", format])
        #expect(single.status == 0 && merged.status == 0, "\(merged)")
        #expect(single.stdout.contains(format == "json" ? "stallRateCI" : "5") && !single.stdout.isEmpty)
        #expect(merged.stdout == single.stdout, "--by \(field) -f \(format)")
        #expect(merged.stderr.contains("merged 2 partials: 16 meetings"), "\(merged)")
    }

    /// The release gate over partials: the same figures, verdict and exit code.
    @Test(arguments: [["5.2.3", "5.3.0"], ["5.2.3", "5.3.1"]])
    func mergedCompareEqualsOneStore(values: [String]) {
        let f = Self.fleet
        for format in ["json", "md"] {
            let single = MQA.run(["compare", "--db", f.one, "--by", "sdkVersion", "--fail-if-worse", "-f", format] + values)
            let merged = MQA.run(["compare", "--by", "sdkVersion", "--fail-if-worse", "-f", format, "--merge"] + values
                                 + f.partials.reversed())
            #expect(single.status == merged.status && [0, 2].contains(single.status), "\(merged)")
            #expect(!single.stdout.isEmpty && merged.stdout == single.stdout, "\(values) \(format)")
        }
        let typo = MQA.run(["compare", "--by", "sdkVersion", "--merge", "5.2.3", "5.3.9"] + f.partials)
        #expect(typo.status == 1 && typo.stderr.contains("did you mean '5.3.0'?"), "\(typo)")
    }

    @Test func theSeedAndReplicatesApplyAtTheMerge() {
        let f = Self.fleet
        let extra = ["--seed", "7", "--replicates", "300", "-f", "json"]
        let single = MQA.run(["report", "cohorts", "--db", f.one, "--by", "sdkVersion"] + extra)
        let merged = MQA.run(["report", "cohorts", "--merge"] + f.partials + ["--by", "sdkVersion"] + extra)
        #expect(single.status == 0 && merged.stdout == single.stdout, "\(merged)")
        #expect(single.stdout.contains("\"replicates\": 300"))
    }

    @Test(arguments: [[], ["--by", "netType"], ["--every", "week", "--by", "sdkVersion"], ["-f", "csv"]])
    func mergedTrendsEqualOneStore(extra: [String]) {
        let f = Self.fleet
        let format = extra.contains("-f") ? [] : ["-f", "json"]
        let single = MQA.run(["report", "trends", "--db", f.one] + extra + format)
        // A cohorts partials file serves trends too: it is the same file.
        let trendsPartial = MQA.run(["report", "trends", "--db", Self.fleet.dir.file("shard0.sqlite"), "--partials"])
        #expect(trendsPartial.stdout == (try? String(contentsOfFile: f.partials[0], encoding: .utf8)))
        let merged = MQA.run(["report", "trends", "--merge"] + f.partials + extra + format)
        #expect(single.status == 0 && merged.status == 0, "\(merged)")
        #expect(merged.stdout == single.stdout, "\(extra)")
    }

    @Test func thePartialsHoldSumsPerMeetingAndProfile() throws {
        let text = try String(contentsOfFile: Self.fleet.partials[0], encoding: .utf8)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["schema"] as? String == "mqa.cohortPartials/3")
        #expect(text.hasPrefix("{\"schema\":\"mqa.cohortPartials/3\""))
        let list = try #require(json["perMeeting"] as? [[String: Any]])
        #expect(list.count == 8 && json["meetings"] as? Int == 8)
        let ids = list.compactMap { $0["meeting"] as? String }
        #expect(ids == ids.sorted())
        let profile = try #require((list.first?["profiles"] as? [[String: Any]])?.first)
        for key in ["platform", "sdkVersion", "engine", "participants", "watchedMs", "stalledMs", "lowTierMs", "measuredMs",
                    "dropped", "mos", "firstFrameMs"] {
            #expect(profile.keys.contains(key), "\(key)")
        }
        // No participant ids travel: the file holds sums, not people.
        #expect(!text.contains("\"uid\""))
    }

    @Test func aMeetingInTwoPartsIsAnError() {
        let p = Self.fleet.partials[0]
        let r = MQA.run(["report", "cohorts", "--merge", p, p, "--by", "platform"])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("is in more than one part"), "\(r)")
    }

    /// Partials of an older mqa (versions 1 and 2) merge among themselves,
    /// with a warning that their figures follow the old rule; never with
    /// files of another version.
    @Test func olderPartialsMergeWithAWarning() throws {
        let dir = Scratch()
        let text = try String(contentsOfFile: Self.fleet.partials[0], encoding: .utf8)
        // The fleet's participants change network only: version 2's words.
        #expect(!text.contains(#""splitBy":["netType","#) && text.contains(#""splitBy":["netType"]"#))
        let legacy = text.replacingOccurrences(of: #""scope":"whole","splitBy":["netType"]"#, with: #""scope":"whole""#)
            .replacingOccurrences(of: #""scope":"piece","pieceOf":"netType""#, with: #""scope":"network""#)
        for version in [1, 2] {
            let old = dir.write("v\(version).json", legacy.replacingOccurrences(
                of: #""mqaCohortPartials":3"#, with: #""mqaCohortPartials":\#(version)"#))
            let alone = MQA.run(["report", "cohorts", "--merge", old, "--by", "netType"])
            #expect(alone.status == 0 && alone.stderr.contains("Warning: partials of version \(version) (an older mqa)"),
                    "\(alone)")
            let mixed = MQA.run(["report", "cohorts", "--merge", old, Self.fleet.partials[1], "--by", "netType"])
            #expect(mixed.status == 1 && mixed.stderr.contains("partials of versions \(version) and 3 do not merge"), "\(mixed)")
        }
        // A version 3 file in version 2's words is refused, naming the profile.
        let worded = dir.write("worded.json", legacy)
        let refused = MQA.run(["report", "cohorts", "--merge", worded, "--by", "netType"])
        #expect(refused.status == 1 && refused.stderr.contains("profile") && refused.stderr.contains("pieceOf"), "\(refused)")
    }

    /// "é" precomposed and "e" + U+0301 are two meetings of one store (ids
    /// are bytes); the partials took them for one (Swift compares strings
    /// canonically) and failed on such a store.
    @Test func meetingIdsEqualOnlyCanonicallyAreTwoMeetings() {
        let dir = Scratch()
        let nfc = Lines.meeting("caf\u{E9}")
        let nfd = Lines.meeting("cafe\u{301}", uid: "bob", start: Lines.t0 + 60_000)
        let db = dir.file("s.sqlite")
        #expect(MQA.run(["ingest", "--db", db, dir.write("log.ndjson", nfc + nfd)]).status == 0)
        let p = MQA.run(["report", "cohorts", "--db", db, "--partials"])
        #expect(p.status == 0, "\(p)")
        #expect(p.stdout.contains("\"meetings\":2") || p.stdout.contains("\"meetings\": 2"), "\(p.stdout.prefix(300))")
        let merged = MQA.run(["report", "cohorts", "--merge", dir.write("p.json", p.stdout), "--by", "platform", "-f", "json"])
        #expect(merged.status == 0 && merged.stdout == MQA.run(["report", "cohorts", "--db", db, "--by", "platform", "-f", "json"]).stdout,
                "\(merged)")
    }

    @Test func aFileThatIsNotPartialsFails() {
        let dir = Scratch()
        let tune = dir.write("tune.json", #"{"schema": "mqa.tunePartials/1", "mqaTunePartials": 1}"#)
        let r = MQA.run(["report", "cohorts", "--merge", tune, "--by", "platform"])
        #expect(r.status == 1 && r.stderr.contains("not a cohort partials file"), "\(r)")
        let bad = dir.write("bad.json", #"{"mqaCohortPartials": 1, "perMeeting": [{"meeting": "m", "profiles": [{"participants": -1}]}]}"#)
        let s = MQA.run(["report", "trends", "--merge", bad])
        #expect(s.status == 1 && s.stderr.contains("meeting 1, profile 1"), "\(s)")
        // A histogram claiming more first frames than any store holds is
        // refused (memory and the weighted counts stay bounded), not a crash.
        let profile = #"{"participants": 1, "watchedMs": 0, "stalledMs": 0, "lowTierMs": 0, "measuredMs": 0, "dropped": 0, "mos": [], "firstFrameMs": [[100, 2147483647]]}"#
        let huge = dir.write("huge.json", #"{"mqaCohortPartials": 1, "perMeeting": [{"meeting": "a", "profiles": ["#
            + profile + #"]}, {"meeting": "b", "profiles": ["# + profile + "]}]}")
        let h = MQA.run(["report", "cohorts", "--merge", huge, "--by", "platform"])
        #expect(h.status == 1 && h.stderr.contains("more than 2147483647 first-frame times"), "\(h)")
        // The participants it states must be those its profiles hold, as
        // for meetings; a first frame cannot come before its subscription.
        let one = #"{"participants": 1, "watchedMs": 0, "stalledMs": 0, "lowTierMs": 0, "measuredMs": 0, "dropped": 0, "mos": [], "firstFrameMs": "#
        let counted = dir.write("count.json", #"{"mqaCohortPartials": 2, "meetings": 1, "participants": 999, "perMeeting": [{"meeting": "a", "profiles": ["#
            + one + "[]}]}]}")
        let c = MQA.run(["report", "cohorts", "--merge", counted, "--by", "platform"])
        #expect(c.status == 1 && c.stderr.contains("it says 999 participants but its profiles hold 1"), "\(c)")
        let early = dir.write("early.json", #"{"mqaCohortPartials": 2, "perMeeting": [{"meeting": "a", "profiles": ["# + one + "[[-5, 1]]}]}]}")
        let e = MQA.run(["report", "cohorts", "--merge", early, "--by", "platform"])
        #expect(e.status == 1 && e.stderr.contains("meeting 1, profile 1"), "\(e)")
    }

    @Test(arguments: [
        (["report", "cohorts", "--merge"], "at least one partials file"),
        (["report", "cohorts", "--merge", "p.json"], "missing '--by <field>'"),
        (["report", "cohorts", "--merge", "p.json", "--db", "x.sqlite", "--by", "platform"], "'--db' does not go with --merge"),
        (["report", "cohorts", "--partials", "--merge", "p.json"], "not both"),
        (["report", "cohorts", "p.json", "--by", "platform"], "only with --merge"),
        (["report", "cohorts", "--partials", "-f", "md"], "'--format' must be one of json"),
        (["report", "cohorts", "--partials", "--seed", "3"], "made by --merge"),
        (["report", "trends", "--partials", "--every", "week"], "give it to --merge"),
        (["report", "trends", "--merge", "p.json", "--since", "2026-01-01"], "'--since' does not go with --merge"),
        (["compare", "--by", "platform", "--merge", "ios", "web"], "at least one partials file"),
        (["compare", "--by", "platform", "ios", "web", "p.json"], "only with --merge"),
        (["compare", "--by", "platform", "--merge", "ios", "web", "p.json", "--db", "x"], "'--db' does not go with --merge"),
    ])
    func usageErrors(args: [String], message: String) {
        let r = MQA.run(args)
        #expect(r.status == 64, "mqa \(args): \(r)")
        #expect(r.stderr.contains(message), "mqa \(args): \(r)")
    }
}

/// The fleet table's platform and SDK columns count the participants the
/// cohorts count: summed over meetings, each value's participants are the
/// cohort's (`report fleet` reads the logs, `report cohorts` the summaries).
@Suite struct FleetClientColumnsCLITests {
    @Test(arguments: [("platform", "platforms"), ("sdkVersion", "sdkVersions")])
    func fleetColumnsAgreeWithTheCohorts(field: String, key: String) throws {
        let db = CohortPartialsCLITests.fleet.one
        let fleet = MQA.run(["report", "fleet", "--db", db, "-f", "json"])
        let cohorts = MQA.run(["report", "cohorts", "--db", db, "--by", field, "-f", "json"])
        #expect(fleet.status == 0 && cohorts.status == 0, "\(fleet)")
        let ranked = try #require((try JSONSerialization.jsonObject(with: Data(fleet.stdout.utf8)) as? [String: Any])?["ranked"]
            as? [[String: Any]])
        var summed: [String: Int] = [:]
        for e in ranked {
            let mix = try #require(e[key] as? [String: Int])
            #expect(mix.values.reduce(0, +) <= e["participants"] as? Int ?? 0)
            for (v, n) in mix { summed[v, default: 0] += n }
        }
        let table = try #require(try JSONSerialization.jsonObject(with: Data(cohorts.stdout.utf8)) as? [String: Any])
        let byValue = try #require(table["cohorts"] as? [[String: Any]])
        var expected: [String: Int] = [:]
        for c in byValue { expected[c["value"] as! String] = c["participants"] as? Int }
        #expect(!summed.isEmpty && summed == expected)
        // md shows them compactly, most participants first.
        let md = MQA.run(["report", "fleet", "--db", db, "--top", "1"])
        #expect(md.stdout.contains("| platforms ") && md.stdout.contains(" ×"), "\(md.stdout)")
    }
}

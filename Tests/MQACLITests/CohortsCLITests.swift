import Foundation
import Testing
import MQAStore

/// `mqa report cohorts` and `mqa compare` through the built binary, on one
/// simulated store (the simulator plants an SDK 5.3.0 stall regression).
@Suite struct CohortsCLITests {
    nonisolated(unsafe) static let store: (dir: Scratch, db: String) = {
        let dir = Scratch("cohorts")
        let log = dir.simulated("fleet.ndjson", meetings: 24, seed: 3)
        let db = dir.file("fleet.sqlite")
        let r = MQA.run(["ingest", "--db", db, log], timeout: 300)
        precondition(r.status == 0, "ingest failed: \(r)")
        return (dir, db)
    }()
    static var db: String { store.db }

    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func cohortsJSONHasTheSpecShape() throws {
        let r = MQA.run(["report", "cohorts", "--db", Self.db, "--by", "sdkVersion", "-f", "json"])
        #expect(r.status == 0, "\(r)")
        let json = try object(r.stdout)
        #expect(json["schema"] as? String == "mqa.cohorts/1")
        #expect(json["by"] as? String == "sdkVersion")
        let cohorts = try #require(json["cohorts"] as? [[String: Any]])
        let keys: Set<String> = ["value", "participants", "meetings", "watchedMs", "stalledMs", "stallRate", "stallRateCI",
                                 "lowTierShare", "lowTierShareCI", "mosP50", "abnormalDisconnectRate", "firstFrameP90Ms"]
        for c in cohorts {
            #expect(keys.isSubset(of: Set(c.keys)), "\(c.keys)")
            let ci = try #require(c["stallRateCI"] as? [Double])
            let rate = try #require(c["stallRate"] as? Double)
            #expect(ci.count == 2 && ci[0] <= rate && rate <= ci[1])
        }
        #expect(Set(cohorts.compactMap { $0["value"] as? String }) == ["5.1.0", "5.1.4", "5.2.0", "5.2.3", "5.3.0", "5.3.1"])
        // The planted regression ranks first.
        #expect(cohorts.first?["value"] as? String == "5.3.0")
        let unknown = try #require(json["unknown"] as? [String: Any])
        #expect(keys.isSubset(of: Set(unknown.keys)))
        #expect(unknown["value"] is NSNull)
        #expect((unknown["participants"] as? Int ?? 0) > 0)
    }

    @Test(arguments: ["md", "csv", "html"]) func cohortsInEveryFormat(format: String) {
        let r = MQA.run(["report", "cohorts", "--db", Self.db, "--by", "netType", "-f", format])
        #expect(r.status == 0, "\(r)")
        switch format {
        case "md": #expect(r.stdout.hasPrefix("# Cohorts by netType: 24 meetings") && r.stdout.contains("| cellular"))
        case "csv": #expect(r.stdout.hasPrefix("value,participants,meetings,watchedMs,stalledMs,stallRate,stallRateLow,stallRateHigh,"))
        default: #expect(r.stdout.contains("<svg") && r.stdout.contains("</html>") && !r.stdout.contains("<script"))
        }
    }

    /// cli.md v3: "`--tz ZONE` (an IANA name, or `MQA_TZ`)": the cohort
    /// commands read a typed time in the zone either way.
    @Test(arguments: [["report", "cohorts", "--by", "netType"], ["report", "trends"], ["compare", "--by", "sdkVersion", "5.2.3", "5.3.0"]])
    func tzIsTakenWhereMQATZIs(command: [String]) {
        let since = ["--since", "10:00", "-f", "json", "--db", Self.db]
        let option = MQA.run(command + since + ["--tz", "Asia/Tokyo"])
        let env = MQA.run(command + since, environment: ["MQA_TZ": "Asia/Tokyo"])
        #expect(option.status == env.status && option.stdout == env.stdout && option.stderr == env.stderr, "\(option)")
        #expect(!option.stderr.contains("unknown option"), "\(option)")
    }

    /// An unknown `MQA_TZ` is a usage error wherever `--tz` is taken, as
    /// the same name given with `--tz` is, also when no time is typed
    /// (these commands read the zone only for `--since`/`--until`, and
    /// ignored the variable otherwise, with exit 0).
    @Test(arguments: [["report", "cohorts", "--by", "netType"], ["compare", "--by", "sdkVersion", "5.2.3", "5.3.0"],
                      ["tune", "--grid", "-"], ["meetings"]])
    func anUnknownZoneInMQATZIsRefusedEverywhere(command: [String]) {
        let r = MQA.run(command + ["--db", Self.db, "-f", "json"], environment: ["MQA_TZ": "Mars/Olympus"])
        #expect(r.status == 64 && r.stderr.contains("MQA_TZ 'Mars/Olympus' is not a time zone"), "\(r)")
        let option = MQA.run(command + ["--db", Self.db, "-f", "json", "--tz", "Mars/Olympus"])
        #expect(option.status == 64, "\(option)")
    }

    @Test func compareJSONAndTheReleaseGate() throws {
        let r = MQA.run(["compare", "--db", Self.db, "--by", "sdkVersion", "5.2.3", "5.3.0", "-f", "json", "--fail-if-worse"])
        #expect(r.status == 2, "\(r)")
        let json = try object(r.stdout)
        #expect(json["schema"] as? String == "mqa.compare/1")
        #expect(json["by"] as? String == "sdkVersion" && json["a"] as? String == "5.2.3" && json["b"] as? String == "5.3.0")
        let metrics = try #require(json["metrics"] as? [String: [String: Any]])
        #expect(Set(metrics.keys) == ["stallRate", "lowTierShare", "abnormalDisconnectRate", "neverRenderedShare", "mosP50", "firstFrameP90Ms"])
        for (_, m) in metrics {
            #expect(Set(["a", "b", "ratio", "ratioCI", "significant"]).isSubset(of: Set(m.keys)))
        }
        let stall = try #require(metrics["stallRate"])
        #expect(stall["significant"] as? Bool == true)
        let ci = try #require(stall["ratioCI"] as? [Double])
        #expect(ci[0] > 1)
        let verdict = try #require(json["verdict"] as? String)
        #expect(verdict.hasPrefix("5.3.0 stalls ") && verdict.contains("× as much as 5.2.3 (95 % CI "), "\(verdict)")
        // The same comparison without the gate exits 0.
        #expect(MQA.run(["compare", "--db", Self.db, "--by", "sdkVersion", "5.2.3", "5.3.0"]).status == 0)
        // Each side's figures carry the intervals `report cohorts` gives them
        // (the same resamples), not nulls.
        let cohorts = try object(MQA.run(["report", "cohorts", "--db", Self.db, "--by", "sdkVersion", "-f", "json"]).stdout)
        let rows = try #require(cohorts["cohorts"] as? [[String: Any]])
        let sides = try #require(json["cohorts"] as? [String: [String: Any]])
        for (side, value) in [("a", "5.2.3"), ("b", "5.3.0")] {
            let row = try #require(rows.first { $0["value"] as? String == value })
            for key in ["stallRateCI", "lowTierShareCI", "abnormalDisconnectRateCI"] {
                let mine = try #require(sides[side]?[key] as? [Double], "\(side).\(key)")
                #expect(mine == row[key] as? [Double], "\(side).\(key)")
            }
        }
    }

    /// By netType a participant who changed network counts on each
    /// network; the top counts say how the cohorts add up.
    @Test func netTypeCohortsSayWhoChangedNetwork() throws {
        func run(_ field: String) throws -> [String: Any] {
            try object(MQA.run(["report", "cohorts", "--db", Self.db, "--by", field, "-f", "json"]).stdout)
        }
        let net = try run("netType"), platform = try run("platform")
        let people = try #require(net["participants"] as? Int), changed = try #require(net["changedNetwork"] as? Int)
        #expect(people == platform["participants"] as? Int && platform["changedNetwork"] as? Int == 0)
        #expect(changed > 0)
        let rows = (net["cohorts"] as? [[String: Any]] ?? []) + [net["unknown"] as? [String: Any] ?? [:]]
        #expect(rows.reduce(0) { $0 + ($1["participants"] as? Int ?? 0) } == people + changed)
    }

    /// A network a participant joined on but has no figure on is no
    /// cohort: comparing it is asking for a value nobody has.
    @Test func aNetworkWithoutFiguresIsNoValue() {
        let dir = Scratch()
        let t0: Int64 = 1_795_946_400_000
        func line(_ dt: Int64, _ uid: String, _ rest: String) -> String {
            #"{"ts":\#(t0 + dt),"meeting":"m-1","uid":"\#(uid)","# + rest + "}"
        }
        func report(_ dt: Int64, _ uid: String) -> String {
            line(dt, uid, #""event":"quality_report","loss":0.4,"rtt":48,"jitter":6,"bitrate":1850,"mos":4.3"#)
        }
        var lines = [line(0, "alice", #""event":"meeting_join","engine":"sfu","netType":"wifi""#),
                     line(1, "alice", #""event":"network_change","netType":"cellular""#),
                     line(30_000, "alice", #""event":"network_change","netType":"ethernet""#),
                     line(0, "bob", #""event":"meeting_join","engine":"sfu","netType":"ethernet""#)]
        lines += stride(from: Int64(2000), through: 60_000, by: 2000).flatMap { [report($0, "alice"), report($0, "bob")] }
        let log = dir.write("m.ndjson", lines.joined(separator: "\n") + "\n")
        let db = dir.file("s.sqlite")
        #expect(MQA.run(["ingest", "--db", db, log]).status == 0)
        let r = MQA.run(["compare", "--db", db, "--by", "netType", "wifi", "cellular"])
        #expect(r.status == 1 && r.stderr.contains("no participant has netType 'wifi'"), "\(r)")
        #expect(MQA.run(["compare", "--db", db, "--by", "netType", "ethernet", "cellular"]).status == 0)
    }

    /// A metric one side has no figure for (a CDN meeting has no MOS and
    /// no tier) was tested with nothing: its p is null, not 1.
    @Test func aMetricWithoutAFigureHasNoP() throws {
        let r = MQA.run(["compare", "--db", Self.db, "--by", "engine", "sfu", "cdn", "-f", "json"])
        #expect(r.status == 0, "\(r)")
        let metrics = try #require(try object(r.stdout)["metrics"] as? [String: [String: Any]])
        let mos = try #require(metrics["mosP50"])
        #expect(mos["b"] is NSNull && mos["p"] is NSNull && mos["pAdjusted"] is NSNull, "\(mos)")
        #expect(metrics["stallRate"]?["p"] is NSNumber)
        let csv = MQA.run(["compare", "--db", Self.db, "--by", "engine", "sfu", "cdn", "-f", "csv"]).stdout
        #expect(csv.split(separator: "\n").contains { $0.hasPrefix("mosP50,") && $0.contains(",,,,,false,false") }, "\(csv)")
    }

    /// `--margin` lets a regression smaller than it pass the gate, and
    /// says so; one larger still fails it.
    @Test func aMarginLetsASmallRegressionPass() throws {
        let args = ["compare", "--db", Self.db, "--by", "sdkVersion", "5.2.3", "5.3.0", "--fail-if-worse", "-f", "json"]
        let strict = try object(MQA.run(args).stdout)
        let ratio = try #require((strict["metrics"] as? [String: [String: Any]])?["stallRate"]?["ratio"] as? Double)
        #expect(ratio > 1.2 && strict["margin"] as? Double == 0)
        let wide = MQA.run(args + ["--margin", "\(Int((ratio - 1) * 100) + 1)%"])
        #expect(wide.status == 0, "\(wide)")
        let json = try object(wide.stdout)
        #expect(json["failsGate"] as? Bool == false)
        #expect((json["verdict"] as? String)?.contains("margin of the gate: stall rate") == true, "\(json)")
        let narrow = MQA.run(args + ["--margin", "\(Int((ratio - 1) * 100) - 1)"])
        #expect(narrow.status == 2, "\(narrow)")
    }

    /// The fix (5.3.1) and the regression seen the other way round (5.2.3
    /// against 5.3.0: B better) pass the gate.
    @Test(arguments: [["5.2.3", "5.3.1"], ["5.3.0", "5.2.3"]]) func theGatePasses(values: [String]) {
        let r = MQA.run(["compare", "--db", Self.db, "--by", "sdkVersion"] + values + ["--fail-if-worse"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("B/A"))
    }

    @Test(arguments: [
        (["compare", "--by", "sdkVersion", "5.2.3"], 64, "missing expected argument"),
        (["compare", "5.2.3", "5.3.0"], 64, "missing '--by <field>'"),
        (["compare", "--by", "sdk", "5.2.3", "5.3.0"], 64, "must be one of platform, osVersion, sdkVersion"),
        (["compare", "--by", "sdkVersion", "5.3.0", "5.3.0"], 64, "two different values"),
        (["compare", "--by", "sdkVersion", "5.2.3", ""], 64, "B is empty"),
        (["compare", "--by", "sdkVersion", "5.2.3", "5.3.9"], 1, "no participant has sdkVersion '5.3.9'; did you mean '5.3.0'?"),
        (["compare", "--by", "sdkVersion", "5.2.3", "5.3.0", "--margin", "5"], 64, "--margin needs --fail-if-worse"),
        (["compare", "--by", "sdkVersion", "5.2.3", "5.3.0", "--fail-if-worse", "--margin", "-5"], 64, "must be a percentage"),
        (["compare", "--by", "sdkVersion", "5.2.3", "5.3.0", "--fail-if-worse", "--margin", "5x"], 64, "must be a percentage"),
        (["report", "cohorts"], 64, "missing '--by <field>'"),
        (["report", "cohorts", "--by", "netType", "--replicates", "5"], 64, "--replicates"),
        (["report", "cohorts", "--by", "netType", "--since", "2030-01-01"], 1, "no meeting in the store started at or after"),
        (["report", "fleet", "--since", "2030-01-01"], 1, "no meeting in the store started at or after 2030-01-01"),
        (["report", "fleet", "--until", "2000-01-02"], 1, "no meeting in the store started before 2000-01-02"),
    ])
    func badRequests(args: [String], status: Int32, message: String) {
        let r = MQA.run(args + ["--db", Self.db])
        #expect(r.status == status, "mqa \(args): \(r)")
        #expect(r.stderr.contains(message), "mqa \(args): \(r.stderr)")
    }

    /// Same store, same seed: the same bytes; another seed moves only the intervals.
    @Test func intervalsAreReproducible() {
        let args = ["report", "cohorts", "--db", Self.db, "--by", "platform", "-f", "csv"]
        let a = MQA.run(args), b = MQA.run(args), c = MQA.run(args + ["--seed", "9"])
        #expect(a.status == 0 && a.stdout == b.stdout)
        #expect(c.stdout != a.stdout)
    }
}

@Suite struct TrendsCLITests {
    @Test func trendsJSONAndFormats() throws {
        let db = CohortsCLITests.db
        let r = MQA.run(["report", "trends", "--db", db, "--every", "week", "-f", "json"])
        #expect(r.status == 0, "\(r)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["schema"] as? String == "mqa.trends/1" && json["every"] as? String == "week" && json["by"] is NSNull)
        let periods = try #require(json["periods"] as? [[String: Any]])
        #expect(periods.count >= 2)
        #expect(periods.allSatisfy { ($0["period"] as? String)?.count == 10 && $0["stallRateCI"] != nil && $0["value"] == nil })
        let byNet = MQA.run(["report", "trends", "--db", db, "--by", "netType", "-f", "html"])
        #expect(byNet.status == 0 && byNet.stdout.contains("<svg") && byNet.stdout.contains("cellular"))
        // The period's date stays on one line in a narrow column.
        #expect(byNet.stdout.contains("<td><span class=\"nowrap\">20"))
        let csv = MQA.run(["report", "trends", "--db", db, "--by", "netType", "-f", "csv"])
        #expect(csv.stdout.hasPrefix("period,value,participants,"))
        let md = MQA.run(["report", "trends", "--db", db])
        #expect(md.stdout.hasPrefix("# Trends per day: 24 meetings"))
        #expect(MQA.run(["report", "trends", "--db", db, "--every", "month"]).status == 64)
    }

    /// `--tz` makes the periods the zone's calendar days: a meeting at
    /// 00:30 in Berlin belongs to that Berlin day, not to the UTC day before.
    @Test func trendsFollowTheZonesCalendar() throws {
        let dir = Scratch("trends-tz")
        let late = Lines.t0 + 13 * 3_600_000 + 30 * 60_000  // 2026-11-29T23:30:00Z, 00:30 on the 30th in Berlin
        let f = dir.write("log.ndjson", Lines.meeting("m-late", start: late) + Lines.meeting("m-noon", start: Lines.t0 + 2 * 3_600_000))
        let db = dir.file("s.sqlite")
        #expect(MQA.run(["ingest", "--db", db, f]).status == 0)
        func periods(_ extra: [String]) throws -> [String] {
            let r = MQA.run(["report", "trends", "--db", db, "-f", "json"] + extra, environment: ["MQA_TZ": ""])
            #expect(r.status == 0, "\(r)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            return (json["periods"] as? [[String: Any]] ?? []).compactMap { $0["period"] as? String }
        }
        #expect(try periods([]) == ["2026-11-29"], "both meetings on the UTC day")
        #expect(try periods(["--tz", "Europe/Berlin"]) == ["2026-11-29", "2026-11-30"], "23:30Z is 00:30 the next Berlin day")
        let md = MQA.run(["report", "trends", "--db", db, "--tz", "Europe/Berlin"])
        #expect(md.stdout.contains("Periods by meeting start (Europe/Berlin days)."), "\(md)")
        // A report site's trends page counts in the same calendar.
        let site = dir.file("site")
        let html = MQA.run(["report", "meeting", "--all", "--db", db, "--format", "html", "--out", site, "--tz", "Europe/Berlin"])
        #expect(html.status == 0, "\(html)")
        let page = try String(contentsOfFile: site + "/trends.html", encoding: .utf8)
        #expect(page.contains("Europe/Berlin days") && page.contains("2026-11-30"), "\(page)")
    }
}

@Suite struct CohortSiteTests {
    /// A report site gets cohorts.html and trends.html beside index.html,
    /// linked both ways; other formats do not.
    @Test func theSiteLinksItsCohortAndTrendPages() throws {
        let dir = Scratch()
        let site = dir.file("site")
        let r = MQA.run(["report", "meeting", "--all", "--db", CohortsCLITests.db, "--format", "html", "--out", site], timeout: 300)
        #expect(r.status == 0, "\(r)")
        let index = try String(contentsOfFile: site + "/index.html", encoding: .utf8)
        #expect(index.contains("<a href=\"cohorts.html\"") && index.contains("<a href=\"trends.html\""))
        for page in ["cohorts.html", "trends.html"] {
            let text = try String(contentsOfFile: site + "/" + page, encoding: .utf8)
            #expect(text.contains("<a href=\"index.html\">") && text.contains("<svg") && !text.contains("<script"), "\(page)")
        }
        let cohorts = try String(contentsOfFile: site + "/cohorts.html", encoding: .utf8)
        #expect(cohorts.contains("id=\"by-sdkVersion\"") && cohorts.contains("id=\"by-netType\"") && cohorts.contains("5.3.0"))
        let md = dir.file("md")
        #expect(MQA.run(["report", "meeting", "--all", "--db", CohortsCLITests.db, "--format", "md", "--out", md], timeout: 300).status == 0)
        #expect(!FileManager.default.fileExists(atPath: md + "/cohorts.html"))
    }

    /// The site's cohort pages read the summaries: those a killed ingest
    /// left stale are redone first, as `report cohorts` does.
    @Test func theSiteRedoesStaleSummariesFirst() throws {
        let dir = Scratch()
        let db = dir.file("stale.sqlite")
        try FileManager.default.copyItem(atPath: CohortsCLITests.db, toPath: db)
        do {
            let store = try EventStore(path: db)
            try store.db.execute("UPDATE meetings SET stale = 1; DELETE FROM meeting_summary; DELETE FROM participant_summary; DELETE FROM track_summary")
        }
        let site = dir.file("site")
        let r = MQA.run(["report", "meeting", "--all", "--db", db, "--format", "html", "--out", site], timeout: 300)
        #expect(r.status == 0, "\(r)")
        let cohorts = try String(contentsOfFile: site + "/cohorts.html", encoding: .utf8)
        #expect(cohorts.contains("Cohorts: 24 meetings"), "\(cohorts.prefix(300))")
    }
}

@Suite struct TuneByCLITests {
    /// `mqa tune --by FIELD --format json` on the simulated fleet with
    /// `grid`: the whole JSON object.
    func tuneBy(_ field: String, grid: String) throws -> [String: Any] {
        let dir = Scratch()
        let path = dir.write("grid.json", grid)
        let r = MQA.run(["tune", "--db", CohortsCLITests.db, "--grid", path, "--by", field, "--format", "json"], timeout: 300)
        #expect(r.status == 0, "\(r)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    /// By engine: a CDN cohort has no quality reports, so nothing to tune
    /// (it said "upDwell 1 instead of 3: F1 0.000 vs 0.000"); no cohort is
    /// told to change for an equal F1.
    @Test func tuneByEngineRecommendsNothingWithoutAGain() throws {
        let json = try tuneBy("engine", grid: #"{"upDwell": [1, 3], "gapMs": [5000, 10000]}"#)
        let cohorts = try #require(json["cohorts"] as? [[String: Any]])
        let cdn = try #require(cohorts.first { $0["value"] as? String == "cdn" }, "the simulated fleet has CDN meetings")
        #expect(cdn["summary"] as? String == "on cdn, no quality data (no quality reports): nothing to tune", "\(cdn)")
        for c in cohorts {
            let summary = c["summary"] as? String ?? ""
            if summary.contains(" vs ") { #expect((c["gain"] as? Double ?? 0) > 0, "\(summary)") }
        }
    }

    /// The JSON ranks every config of the grid per value (cli.md: "the
    /// ranking per cohort value"), as `tune` without `--by` does; md and
    /// csv show ten rows a value unless `--top` says otherwise. The JSON
    /// stopped at ten: configs past the tenth could not be seen per cohort.
    @Test func tuneByRanksEveryConfigInJSON() throws {
        let spec = #"{"upDwell": [1, 2, 3, 4, 5, 6], "gapMs": [5000, 10000]}"#
        let json = try tuneBy("engine", grid: spec)
        let cohorts = try #require(json["cohorts"] as? [[String: Any]])
        #expect(!cohorts.isEmpty)
        for c in cohorts { #expect((c["ranking"] as? [Any])?.count == 12, "\(c["value"] ?? "")") }
        let dir = Scratch()
        let grid = dir.write("grid.json", spec)
        func csvRows(_ extra: [String]) -> Int {
            let r = MQA.run(["tune", "--db", CohortsCLITests.db, "--grid", grid, "--by", "engine", "-f", "csv"] + extra, timeout: 300)
            #expect(r.status == 0, "\(r)")
            return r.stdout.split(separator: "\n").count - 1
        }
        #expect(csvRows([]) == 10 * cohorts.count)
        #expect(csvRows(["--top", "12"]) == 12 * cohorts.count)
        #expect(csvRows(["--top", "3"]) == 3 * cohorts.count)
    }

    /// Each cohort's ranking of the grid, beside the fleet's best config
    /// scored on that cohort alone; the cohorts' stalls add up to the fleet's.
    @Test func tuneByNetworkRanksEachCohort() throws {
        let dir = Scratch()
        let spec = #"{"thresholds": [[4.0, 3.6, 3.1, 2.6], [4.2, 3.8, 3.3, 2.8]], "hysteresis": [0, 0.2]}"#
        let grid = dir.write("grid.json", spec)
        let json = try tuneBy("netType", grid: spec)
        #expect(json["schema"] as? String == "mqa.tune-cohorts/1" && json["by"] as? String == "netType")
        let cohorts = try #require(json["cohorts"] as? [[String: Any]])
        #expect(cohorts.compactMap { $0["value"] as? String } == ["cellular", "ethernet", "other", "wifi"])
        for c in cohorts {
            let ranking = try #require(c["ranking"] as? [[String: Any]])
            #expect(ranking.count == 4)
            let best = try #require(c["best"] as? [String: Any]), here = try #require(c["fleetBest"] as? [String: Any])
            #expect((best["f1"] as? Double ?? 0) >= (here["f1"] as? Double ?? 1))
            #expect((c["summary"] as? String ?? "").hasPrefix("on "))
            // The gain's interval over the cohort's meetings: [0, 0] when the
            // fleet's best is the cohort's too, else ordered ends around it.
            let gain = try #require(c["gain"] as? Double), ci = try #require(c["gainCI"] as? [Double])
            #expect(ci.count == 2 && ci[0] <= ci[1] && (c["meetings"] as? Int ?? 0) >= 2)
            if best["gridIndex"] as? Int == here["gridIndex"] as? Int {
                #expect(gain == 0 && ci == [0, 0])
            } else {
                #expect(gain > 0 && ci[1] > 0 && ci[0] <= gain)
            }
        }
        let fleet = MQA.run(["tune", "--db", CohortsCLITests.db, "--grid", grid, "--format", "json"], timeout: 300)
        let tuned = try #require(try JSONSerialization.jsonObject(with: Data(fleet.stdout.utf8)) as? [String: Any])
        let all = try #require(tuned["configs"] as? [[String: Any]], "mqa.tune/1 keeps its ranking under configs")
        let stalls = cohorts.reduce(0) { $0 + ($1["stalls"] as? Int ?? 0) }
        #expect(stalls == all.first?["stalls"] as? Int)
        let md = MQA.run(["tune", "--db", CohortsCLITests.db, "--grid", grid, "--by", "netType"], timeout: 300)
        #expect(md.stdout.hasPrefix("# Tuning by netType: 4 configs, 5 cohorts") && md.stdout.contains("- on cellular"), "\(md.stdout)")
        #expect(MQA.run(["tune", "--db", CohortsCLITests.db, "--grid", grid, "--by", "netType", "--partials"]).status == 64)
    }
}

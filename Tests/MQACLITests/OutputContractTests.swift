import Foundation
import Testing

/// Every JSON output of the binary names its shape (`"schema":
/// "mqa.<name>/N"`, first), and no JSON key or CSV header has snake_case.
@Suite struct OutputContractTests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    func object(_ r: MQA.Result) throws -> [String: Any] {
        #expect(r.status == 0, "\(r)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
    }

    @Test func everyJSONOutputCarriesItsSchema() throws {
        let log = dir.simulated("sim.ndjson", meetings: 2, seed: 5)
        let ingest = try object(MQA.run(["ingest", "--db", db, "--format", "json", log]))
        let meetings = try object(MQA.run(["meetings", "--db", db, "--format", "json"]))
        let id = try #require((meetings["list"] as? [[String: Any]])?.first?["meeting"] as? String)
        let meeting = try object(MQA.run(["report", "meeting", id, "--db", db, "--format", "json"]))
        let track = try #require((meeting["tracks"] as? [[String: Any]])?.first?["track"] as? String)
        let grid = dir.write("grid.json", #"{"upDwell": [1, 2]}"#)
        let outputs: [(String, [String: Any])] = [
            ("mqa.ingest/1", ingest),
            ("mqa.meetings/1", meetings),
            ("mqa.meeting/1", meeting),
            ("mqa.tiers/1", try object(MQA.run(["tiers", "--meeting", id, "--db", db, "--format", "json"]))),
            ("mqa.track/1", try object(MQA.run(["report", "track", track, "--meeting", id, "--db", db, "--format", "json"]))),
            ("mqa.fleet/1", try object(MQA.run(["report", "fleet", "--db", db, "--format", "json"]))),
            ("mqa.tune/1", try object(MQA.run(["tune", "--grid", grid, "--db", db, "--format", "json"]))),
            ("mqa.tunePartials/1", try object(MQA.run(["tune", "--grid", grid, "--db", db, "--partials"]))),
            ("mqa.query/1", try object(MQA.run(["query", "meetings", "--db", db, "--format", "json"]))),
            ("mqa.check/1", try object(MQA.run(["check", "--db", db, "--format", "json"]))),
            ("mqa.query-list/1", try object(MQA.run(["query", "--list", "--format", "json"]))),
        ]
        for (schema, doc) in outputs { #expect(doc["schema"] as? String == schema, "\(schema): \(doc.keys.sorted())") }
        // First, where a reader of the text looks.
        #expect(MQA.run(["report", "fleet", "--db", db, "--format", "json"]).stdout.hasPrefix("{\n  \"schema\": \"mqa.fleet/1\""))
        // The fleet says which figure ranks, and has the normalized view.
        let fleet = outputs[5].1
        #expect(fleet["rankedBy"] as? String == "score")
        #expect((fleet["ranked"] as? [[String: Any]])?.allSatisfy { $0["scorePerParticipantHour"] is NSNumber } == true)
        #expect(fleet["meetings"] as? Int == 2)
    }

    @Test func csvHeadersAreCamelCase() throws {
        let log = dir.simulated("sim.ndjson", meetings: 1, seed: 5)
        #expect(MQA.run(["ingest", "--db", db, log]).status == 0)
        let id = try #require(MQA.run(["meetings", "--db", db, "--format", "csv"]).stdout.split(separator: "\n").dropFirst().first?
            .split(separator: ",").first.map(String.init))
        let codes = Set(["high_packet_loss", "high_latency", "high_jitter", "low_mos", "video_stalls", "stalls_under_good_tier",
                         "never_rendered", "slow_first_frame", "reconnects", "abnormal_disconnect", "no_quality_data"])
        for args in [["meetings"], ["report", "fleet"], ["report", "meeting", id], ["query", "meetings"], ["query", "worst-meetings"]] {
            let r = MQA.run(args + ["--db", db, "--format", "csv"])
            #expect(r.status == 0, "\(r)")
            let header = r.stdout.split(separator: "\n").first.map(String.init) ?? ""
            let snake = header.split(separator: ",").map(String.init).filter { $0.contains("_") && !codes.contains($0) }
            #expect(snake.isEmpty, "\(args): \(snake)")
        }
        // The list's CSV has every key of its JSON entries (it had no engine).
        let csv = MQA.run(["meetings", "--db", db, "--format", "csv"]).stdout
        let json = MQA.run(["meetings", "--db", db, "--format", "json"]).stdout
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let entry = try #require((object["list"] as? [[String: Any]])?.first)
        let header = Set((csv.split(separator: "\n").first ?? "").split(separator: ",").map(String.init))
        #expect(Set(entry.keys).subtracting(header).isEmpty, "CSV lacks \(Set(entry.keys).subtracting(header))")
        // So has tune's, but for the config object (its keys are columns):
        // it had no flaps, warmMs or gridIndex.
        let grid = dir.write("grid.json", #"{"upDwell": [1, 2]}"#)
        let tuneCSV = MQA.run(["tune", "--grid", grid, "--db", db, "--format", "csv"]).stdout
        let tuneJSON = MQA.run(["tune", "--grid", grid, "--db", db, "--format", "json"]).stdout
        let tuned = try #require(try JSONSerialization.jsonObject(with: Data(tuneJSON.utf8)) as? [String: Any])
        let row = try #require((tuned["configs"] as? [[String: Any]])?.first)
        let tuneHeader = Set((tuneCSV.split(separator: "\n").first ?? "").split(separator: ",").map(String.init))
        let missing = Set(row.keys).subtracting(["config"]).subtracting(tuneHeader)
        #expect(missing.isEmpty, "tune CSV lacks \(missing)")
        // And per cohort: a ranking row's keys (it had only the F1 and its parts).
        let byCSV = MQA.run(["tune", "--grid", grid, "--db", db, "--by", "platform", "--format", "csv"]).stdout
        let byJSON = MQA.run(["tune", "--grid", grid, "--db", db, "--by", "platform", "--format", "json"]).stdout
        let byObject = try #require(try JSONSerialization.jsonObject(with: Data(byJSON.utf8)) as? [String: Any])
        let ranked = try #require(((byObject["cohorts"] as? [[String: Any]])?.first?["ranking"] as? [[String: Any]])?.first)
        let byHeader = Set((byCSV.split(separator: "\n").first ?? "").split(separator: ",").map(String.init))
        let byMissing = Set(ranked.keys).subtracting(["config"]).subtracting(byHeader)
        #expect(byMissing.isEmpty, "tune --by CSV lacks \(byMissing)")
        // The fleet's ranked rows (qualityData) and the trends' periods
        // (start), but for objects and pairs (flattened into columns).
        for (args, list) in [(["report", "fleet"], "ranked"), (["report", "trends"], "periods")] {
            let csv = MQA.run(args + ["--db", db, "--format", "csv"]).stdout
            let json = MQA.run(args + ["--db", db, "--format", "json"]).stdout
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let entry = try #require((object[list] as? [[String: Any]])?.first, "\(args)")
            let header = Set((csv.split(separator: "\n").first ?? "").split(separator: ",").map(String.init))
            // A CI pair (or its null) is the columns …Low and …High.
            let scalars = entry.filter { !($0.value is [String: Any]) && !($0.value is [Any]) && !$0.key.hasSuffix("CI") }.keys
            let lacking = Set(scalars).subtracting(header)
            #expect(lacking.isEmpty, "\(args) CSV lacks \(lacking)")
        }
    }

    /// CSV numbers are rounded as the JSON's are (cli.md: no
    /// `994.4409999999999`): the tuning ranking too, per cohort or not.
    @Test func csvNumbersAreRoundedToTheirMeaning() throws {
        let log = dir.simulated("sim.ndjson", meetings: 4, seed: 5)
        #expect(MQA.run(["ingest", "--db", db, log]).status == 0)
        let grid = dir.write("grid.json", #"{"upDwell": [1, 2], "downDwell": [1, 2, 3], "hysteresis": [0.1, 0.2]}"#)
        for extra in [[], ["--by", "platform"]] {
            let r = MQA.run(["tune", "--grid", grid, "--db", db, "--format", "csv"] + extra)
            #expect(r.status == 0, "\(r)")
            let cells = r.stdout.split(separator: "\n").dropFirst().flatMap { $0.split(separator: ",") }
            let long = cells.filter { cell in
                guard let dot = cell.firstIndex(of: "."), Double(cell) != nil else { return false }
                return cell.distance(from: dot, to: cell.endIndex) - 1 > 4
            }
            #expect(long.isEmpty, "\(extra): \(long.prefix(5))")
            #expect(cells.contains { $0.contains(".") }, "some figure is not whole")
        }
    }

    /// A CSV says yes/no as `true`/`false` (the tuning ranking's `pareto`
    /// was 1/0 while its per-cohort twin said true/false), and names a
    /// column as the JSON names its key (the tiers CSV said `connection`
    /// for the JSON's `index`).
    @Test func csvBooleansAndTierColumnsMatchTheJSON() throws {
        let log = dir.simulated("sim.ndjson", meetings: 3, seed: 11)
        #expect(MQA.run(["ingest", "--db", db, log]).status == 0)
        let grid = dir.write("grid.json", #"{"upDwell": [1, 2], "hysteresis": [0.1, 0.2]}"#)
        let tune = MQA.run(["tune", "--grid", grid, "--db", db, "--format", "csv"])
        #expect(tune.status == 0, "\(tune)")
        let rows = tune.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let pareto = try #require(rows.first?.firstIndex(of: "pareto"))
        let flags = Set(rows.dropFirst().map { String($0[pareto]) })
        #expect(!flags.isEmpty && flags.isSubset(of: ["true", "false"]), "\(flags)")
        #expect(flags.contains("true"))

        let meetings = try JSONSerialization.jsonObject(with: Data(MQA.run(["meetings", "--db", db, "--format", "json"]).stdout.utf8)) as? [String: Any]
        let first = try #require((meetings?["list"] as? [[String: Any]])?.first?["meeting"] as? String)
        let tiers = MQA.run(["tiers", "--db", db, "--meeting", first, "--format", "csv"])
        #expect(tiers.status == 0, "\(tiers)")
        #expect(tiers.stdout.hasPrefix("uid,index,ts,time,from,to\n"), "\(tiers.stdout.prefix(80))")
        let json = MQA.run(["tiers", "--db", db, "--meeting", first, "--format", "json"])
        #expect(json.stdout.contains("\"index\": 0"))
    }
}

import Foundation
import MQAQueries
import Testing

/// `mqa query` speaks the reports' JSON (camelCase keys, ms), and `query
/// meetings`, `query worst-meetings` and `tune` take `--since`/`--until`.
@Suite struct QueryCLITests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }
    static let day: Int64 = 86_400_000

    /// Three one-participant meetings a day apart, m-1 the oldest.
    func threeMeetings() {
        let f = dir.write("log.ndjson", Lines.meeting("m-1", start: Lines.t0 - 3 * Self.day)
            + Lines.meeting("m-2", start: Lines.t0 - 2 * Self.day) + Lines.meeting("m-3", start: Lines.t0 - Self.day))
        #expect(MQA.run(["ingest", "--db", db, f]).status == 0)
    }

    /// The day of m-2's start, as a date (`2026-11-27`).
    var dayOfSecondMeeting: String {
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd"
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date(timeIntervalSince1970: Double(Lines.t0 - 2 * Self.day) / 1000))
    }

    func rows(_ json: String) throws -> [[String: Any]] {
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(doc["schema"] as? String == "mqa.query/1")
        return try #require(doc["rows"] as? [[String: Any]])
    }

    @Test func jsonKeysAreCamelCaseAndDurationsMs() throws {
        threeMeetings()
        let r = MQA.run(["query", "meetings", "--db", db, "--format", "json"])
        #expect(r.status == 0, "\(r)")
        let items = try rows(r.stdout)
        #expect(items.count == 3)
        for item in items {
            #expect(!item.keys.contains { $0.contains("_") }, "\(item.keys.sorted())")
            #expect(item["startUtc"] is String)
            // Lines.meeting: a join, 8 reports 2 s apart, a leave 18 s after the join.
            #expect(item["durationMs"] as? Int == 18_000, "\(item)")
        }
        #expect(items.map { $0["start"] as? Int } == [-3, -2, -1].map { Int(Lines.t0 + $0 * Self.day) })
        let worst = try rows(MQA.run(["query", "worst-meetings", "--db", db, "--format", "json"]).stdout)
        #expect(worst.first?.keys.contains("lowTierMs") == true && worst.first?.keys.contains("stalledMs") == true, "\(worst)")
        // md keeps the file's own column names; csv is headed as JSON is keyed.
        #expect(MQA.run(["query", "meetings", "--db", db, "--format", "csv"]).stdout.hasPrefix("meeting,title,engine,start,startUtc,durationMs,"))
        #expect(MQA.run(["query", "meetings", "--db", db]).stdout.contains("| start_utc"))
    }

    /// A CDN meeting has no tier time: `worst-meetings` gives null, as the
    /// fleet report does, never a perfect 0; an SFU meeting keeps its ms.
    @Test func aCDNMeetingHasNoLowTierTime() throws {
        let cdn = Lines.meeting("m-cdn").replacingOccurrences(of: "\"engine\":\"sfu\"", with: "\"engine\":\"cdn\"")
        let f = dir.write("log.ndjson", cdn + Lines.meeting("m-sfu", start: Lines.t0 + 60_000))
        #expect(MQA.run(["ingest", "--db", db, f]).status == 0)
        let worst = try rows(MQA.run(["query", "worst-meetings", "--db", db, "--format", "json"]).stdout)
        let byId = Dictionary(uniqueKeysWithValues: worst.map { ($0["meeting"] as! String, $0) })
        #expect(byId["m-cdn"]?["lowTierMs"] is NSNull, "\(worst)")
        #expect(byId["m-sfu"]?["lowTierMs"] as? Int == 0, "\(worst)")
    }

    /// `--tz` puts each start's UTC and local time beside its ms in md;
    /// JSON and CSV keep ms alone, and md without a zone is unchanged.
    @Test func aZoneShowsStartsAsClockTimes() throws {
        threeMeetings()
        // Lines.t0 is 2026-11-29T10:00:00Z; m-3 starts a day earlier.
        let md = MQA.run(["query", "worst-meetings", "--db", db, "--tz", "Europe/Berlin"])
        #expect(md.status == 0, "\(md)")
        #expect(md.stdout.contains("start (UTC, Europe/Berlin)"), "\(md.stdout)")
        #expect(md.stdout.contains("2026-11-28 10:00:00 UTC (11:00:00 Europe/Berlin, +01:00)"), "\(md.stdout)")
        let plain = MQA.run(["query", "worst-meetings", "--db", db])
        #expect(!plain.stdout.contains("UTC") && plain.stdout.contains(" start |"), "\(plain.stdout)")
        let json = MQA.run(["query", "worst-meetings", "--db", db, "--tz", "Europe/Berlin", "--format", "json"])
        #expect(try rows(json.stdout).allSatisfy { $0.keys.allSatisfy { !$0.hasSuffix("Local") } && $0["start"] is Int })
        let csv = MQA.run(["query", "worst-meetings", "--db", db, "--tz", "Europe/Berlin", "--format", "csv"])
        #expect(csv.stdout == MQA.run(["query", "worst-meetings", "--db", db, "--format", "csv"]).stdout)
    }

    /// `--list` honours `--format` as every other listing does.
    @Test func theListComesInEachFormat() throws {
        let json = MQA.run(["query", "--list", "--format", "json"])
        #expect(json.status == 0, "\(json)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["schema"] as? String == "mqa.query-list/1")
        let queries = try #require(object["queries"] as? [[String: Any]])
        #expect(queries.map { $0["name"] as? String } == Queries.named.map(\.name))
        #expect(queries.allSatisfy { ($0["returns"] as? String)?.isEmpty == false })
        let csv = MQA.run(["query", "--list", "--format", "csv"])
        #expect(csv.status == 0 && csv.stdout.hasPrefix("name,returns\n"), "\(csv)")
        #expect(csv.stdout.split(separator: "\n").count == Queries.named.count + 1)
    }

    @Test func meetingsQueriesTakeATimeWindow() throws {
        threeMeetings()
        let since = MQA.run(["query", "meetings", "--db", db, "--since", dayOfSecondMeeting, "--format", "json"])
        #expect(since.status == 0, "\(since)")
        #expect(try rows(since.stdout).map { $0["meeting"] as? String } == ["m-2", "m-3"])
        let until = MQA.run(["query", "worst-meetings", "--db", db, "--until", dayOfSecondMeeting, "--format", "json"])
        #expect(try rows(until.stdout).map { $0["meeting"] as? String } == ["m-1"], "\(until)")
        let both = MQA.run(["query", "meetings", "--db", db, "--since", dayOfSecondMeeting,
                            "--until", dayOfSecondMeeting + "T23:59:59Z", "--format", "json"])
        #expect(try rows(both.stdout).map { $0["meeting"] as? String } == ["m-2"], "\(both)")
    }

    @Test func aWindowWhereNoneIsTakenIsAUsageError() {
        threeMeetings()
        let rejects = MQA.run(["query", "rejects", "--db", db, "--since", dayOfSecondMeeting])
        #expect(rejects.status == 64, "\(rejects)")
        #expect(rejects.stderr.contains("takes no --since") && rejects.stderr.contains("meetings"), "\(rejects)")
        let asParam = MQA.run(["query", "meetings", "--db", db, "--param", "since=0"])
        #expect(asParam.status == 64, "\(asParam)")
        #expect(asParam.stderr.contains("--since"), "\(asParam)")
        let badTime = MQA.run(["query", "meetings", "--db", db, "--until", "tomorrow"])
        #expect(badTime.status == 64, "\(badTime)")
    }

    @Test func tuneSweepsOnlyTheMeetingsOfTheWindow() throws {
        threeMeetings()
        let grid = dir.write("grid.json", #"{"hysteresis": [0, 0.1]}"#)
        func meetings(_ extra: [String]) throws -> Int? {
            let r = MQA.run(["tune", "--db", db, "--grid", grid, "--partials"] + extra)
            #expect(r.status == 0, "\(r)")
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            return doc["meetings"] as? Int
        }
        #expect(try meetings([]) == 3)
        #expect(try meetings(["--since", dayOfSecondMeeting]) == 2)
        #expect(try meetings(["--until", dayOfSecondMeeting]) == 1)
        let none = MQA.run(["tune", "--db", db, "--grid", grid, "--since", "2100-01-01"])
        #expect(none.status == 1, "\(none)")
        #expect(none.stderr.contains("no meeting"), "\(none)")
        let merge = MQA.run(["tune", "--merge", grid, "--since", dayOfSecondMeeting])
        #expect(merge.status == 64, "\(merge)")
    }
}

import Foundation
import Testing

/// Finding a person's bad moment on the built binary: `meetings --uid/--at`,
/// `report meeting --uid --at`, every time form, `--tz`/`MQA_TZ`, and the
/// exit codes and messages of each mistake.
@Suite struct LookupCLITests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }
    let t0 = Lines.t0  // 2026-11-29T10:00:00Z; each meeting of `Lines` lasts 18 s
    let hour: Int64 = 3_600_000

    /// m-a (alice and bob at t0), m-b (alina at t0 + 1 h), m-c (bob a day
    /// before), m-early (dave at t0 + 2 h, after a context-only client
    /// logged a device change 40 s earlier).
    func store() {
        let early = #"{"ts":\#(t0 + 2 * hour - 40_000),"event":"device_change","meeting":"m-early","uid":"carl","kind":"camera","change":"added"}"#
        let f = dir.write("log.ndjson", Lines.meeting("m-a", uid: "alice") + Lines.meeting("m-a", uid: "bob")
            + Lines.meeting("m-b", uid: "alina", start: t0 + hour) + Lines.meeting("m-c", uid: "bob", start: t0 - 24 * hour)
            + Lines.meeting("m-early", uid: "dave", start: t0 + 2 * hour) + early + "\n")
        let r = MQA.run(["ingest", "--db", db, f])
        #expect(r.status == 0, "\(r)")
    }

    /// `mqa meetings … --format json`: the listed ids, newest first.
    func listed(_ args: [String], env: [String: String] = [:]) throws -> [String] {
        let r = MQA.run(["meetings", "--db", db, "--format", "json"] + args, environment: env)
        #expect(r.status == 0, "\(r)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
        #expect(object["schema"] as? String == "mqa.meetings/1")
        let list = object["list"] as? [[String: Any]] ?? []
        #expect(object["meetings"] as? Int == list.count)
        return list.compactMap { $0["meeting"] as? String }
    }

    func iso(_ ms: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    @Test func byUidAndUniquePrefix() throws {
        store()
        #expect(try listed(["--uid", "bob"]) == ["m-a", "m-c"])
        #expect(try listed(["--uid", "alin"]) == ["m-b"])
        #expect(try listed(["--uid", "d"]) == ["m-early"])
        let ambiguous = MQA.run(["meetings", "--db", db, "--uid", "ali"])
        #expect(ambiguous.status == 1, "\(ambiguous)")
        #expect(ambiguous.stderr.contains(#"uid prefix "ali" matches "alice", "alina""#), "\(ambiguous)")
        let none = MQA.run(["meetings", "--db", db, "--uid", "zed"])
        #expect(none.status == 1 && none.stderr.contains(#"no participant "zed""#), "\(none)")
        let md = MQA.run(["meetings", "--db", db, "--uid", "bob"])
        #expect(md.stdout.hasPrefix("Meetings with bob:"), "\(md)")
    }

    /// carl logged only a device change in m-early: a client, no
    /// participant, so no meeting of his is listed, his prefix matches
    /// nobody, and his report focus is an error (exit 1), not an empty
    /// "not a participant" (exit 0). An empty uid is a usage error.
    @Test func aContextOnlyClientTookPartInNothing() throws {
        store()
        for uid in ["carl", "c"] {
            let r = MQA.run(["meetings", "--db", db, "--uid", uid])
            #expect(r.status == 1 && r.stderr.contains(#"no participant "\#(uid)" in any meeting"#), "\(r)")
        }
        let focus = MQA.run(["report", "meeting", "m-early", "--db", db, "--uid", "carl"])
        #expect(focus.status == 1 && focus.stderr.contains(#"meeting "m-early" has no participant "carl""#), "\(focus)")
        #expect(try listed(["--uid", "dave"]) == ["m-early"])
        for args in [["meetings", "--db", db, "--uid", ""], ["report", "meeting", "m-early", "--db", db, "--uid", ""],
                     ["tiers", "--db", db, "--meeting", "m-early", "--uid", ""]] {
            let r = MQA.run(args)
            #expect(r.status == 64 && r.stderr.contains("must not be empty"), "\(r)")
        }
    }

    @Test func atListsTheMeetingsRunningThen() throws {
        store()
        // Running: start ≤ T ≤ end, not only "started at T". The end (the
        // last event) is inside, as `report meeting --at` counts it.
        #expect(try listed(["--at", iso(t0 + 5000)]) == ["m-a"])
        #expect(try listed(["--at", iso(t0)]) == ["m-a"])
        #expect(try listed(["--at", iso(t0 + 18_000)]) == ["m-a"])
        #expect(try listed(["--at", String(t0 + 18_001)]).isEmpty)  // epoch ms: iso() drops them
        #expect(try listed(["--at", iso(t0 + hour + 1000), "--uid", "alina"]) == ["m-b"])
        #expect(try listed(["--at", iso(t0 + hour + 1000), "--uid", "bob"]).isEmpty)
        let md = MQA.run(["meetings", "--db", db, "--at", iso(t0 - hour)])
        #expect(md.status == 0 && md.stdout.hasPrefix("No meetings running at 2026-11-29T09:00:00.000Z"), "\(md)")
    }

    /// A time of day is matched on each meeting's own date (cli.md: "a
    /// wall-clock time of day on the meeting's date"): "Alice's call at
    /// 10:00" finds it whatever day it was, not only today's.
    @Test func timeOfDayIsOnEachMeetingsDate() throws {
        store()
        #expect(try listed(["--at", "10:00:05"]) == ["m-a", "m-c"])
        #expect(try listed(["--at", "10:00:05", "--uid", "alice"]) == ["m-a"])
        #expect(try listed(["--at", "10:00:05", "--since", "2026-11-29"]) == ["m-a"])
        #expect(try listed(["--at", "11:00:05", "--tz", "Europe/Berlin"]) == ["m-a", "m-c"])
        #expect(try listed(["--at", "11:00:05"], env: ["MQA_TZ": "Europe/Berlin"]) == ["m-a", "m-c"])
        // --tz wins over MQA_TZ.
        #expect(try listed(["--at", "10:00:05", "--tz", "UTC"], env: ["MQA_TZ": "Europe/Berlin"]) == ["m-a", "m-c"])
        // Whatever the day today is.
        #expect(try listed(["--at", "10:00:05"], env: ["MQA_NOW": "2027-03-01T08:00:00Z"]) == ["m-a", "m-c"])
        #expect(try listed(["--at", "10:00:18"]) == ["m-a", "m-c"])  // start ≤ T ≤ end
        #expect(try listed(["--at", "10:00:18.001"]).isEmpty)
        #expect(try listed(["--at", "11:00:00"]) == ["m-b"])
        let json = MQA.run(["meetings", "--db", db, "-f", "json", "--at", "10:00:05"])
        #expect(json.stdout.contains(#""at": null"#) && json.stdout.contains(#""atTimeOfDay": "10:00:05""#), "\(json)")
        #expect(json.stdout.contains(#""zone": "UTC""#), "\(json)")
        let berlin = MQA.run(["meetings", "--db", db, "-f", "json", "--at", "11:00:05", "--tz", "Europe/Berlin"])
        #expect(berlin.stdout.contains(#""atTimeOfDay": "11:00:05",\#n  "zone": "Europe/Berlin""#), "\(berlin)")
        let md = MQA.run(["meetings", "--db", db, "--at", "9:00", "--tz", "Europe/Berlin"])
        #expect(md.status == 0 && md.stdout.hasPrefix("No meetings running at 09:00:00 Europe/Berlin on their date."), "\(md)")
        let some = MQA.run(["meetings", "--db", db, "--uid", "bob", "--at", "10:00"])
        #expect(some.stdout.hasPrefix("Meetings with bob, running at 10:00:00 UTC on their date:"), "\(some)")
    }

    /// A time of day finds a meeting on a date between its first and last
    /// (one room's calls merged over days), and one held in the second pass
    /// of the hour New York repeats when its clocks go back.
    @Test func timeOfDayOnAnyDateAndEitherPassOfARepeatedHour() throws {
        let d = Scratch("lookup-days")
        // m-days: 20:00 on the 29th to 08:00 on the 1st (UTC), two rejoins.
        let long = Lines.meeting("m-days", uid: "alice", start: t0 + 10 * hour)
            + Lines.meeting("m-days", uid: "alice", start: t0 + 46 * hour - 18_000)
        // 2026-11-01T06:05Z: 01:05 EST, after New York's clocks went back at 06:00Z.
        let repeated = Lines.meeting("m-second", uid: "bob", start: 1_793_513_100_000)
        let f = d.write("log.ndjson", long + repeated)
        let db = d.file("s.sqlite")
        #expect(MQA.run(["ingest", "--db", db, f]).status == 0)
        func listed(_ args: [String]) throws -> [String] {
            let r = MQA.run(["meetings", "--db", db, "-f", "json"] + args, environment: ["MQA_TZ": ""])
            #expect(r.status == 0, "\(r)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            return (object["list"] as? [[String: Any]] ?? []).compactMap { $0["meeting"] as? String }
        }
        // 14:05 is in m-days on the 30th only: neither its first date nor its last.
        #expect(try listed(["--at", "14:05"]) == ["m-days"])
        // 01:05:10 in New York: the 30th's in m-days, the repeated hour's second pass in m-second.
        #expect(try listed(["--at", "01:05:10", "--tz", "America/New_York"]) == ["m-days", "m-second"])
        let report = MQA.run(["report", "meeting", "m-second", "--db", db, "--uid", "bob", "--at", "01:05:10", "--tz", "America/New_York"])
        #expect(report.status == 0 && !report.stdout.contains("before the meeting's start"), "\(report)")
    }

    @Test func relativeTimes() throws {
        store()
        let now = ["MQA_NOW": iso(t0 + 2 * hour + 5000)]
        #expect(try listed(["--at", "-2h"], env: now) == ["m-a"])
        #expect(try listed(["--at", "-1h"], env: now) == ["m-b"])
        #expect(try listed(["--at", "-5s"], env: now) == ["m-early"])
        #expect(try listed(["--since", "-90m"], env: now) == ["m-early", "m-b"])
        #expect(try listed(["--since", "yesterday", "--until", "today"], env: ["MQA_NOW": "2026-11-29T12:00:00Z"]) == ["m-c"])
        #expect(try listed(["--since", "today"], env: ["MQA_NOW": "2026-11-29T12:00:00Z"]) == ["m-early", "m-b", "m-a"])
    }

    @Test func sinceSelectsByTheStartTheListShows() throws {
        store()
        // m-early's first participant event is t0 + 2 h; the context-only
        // client's device change 40 s before it is no start.
        #expect(try listed(["--since", iso(t0 + 2 * hour)]) == ["m-early"])
        let fleet = MQA.run(["report", "fleet", "--db", db, "--since", iso(t0 + 2 * hour), "--format", "csv"])
        #expect(fleet.status == 0 && fleet.stdout.contains("m-early"), "\(fleet)")
        let shown = MQA.run(["report", "fleet", "--db", db, "--format", "json"])
        #expect(shown.stdout.contains("\"start\": \(t0 + 2 * hour)") || shown.stdout.contains("\"start\":\(t0 + 2 * hour)"), "\(shown)")
        let until = MQA.run(["report", "fleet", "--db", db, "--until", iso(t0 + 2 * hour), "--format", "csv"])
        #expect(until.status == 0 && !until.stdout.contains("m-early"), "\(until)")
    }

    @Test func badZonesTimesAndClocksAreUsageErrors() {
        store()
        let option = MQA.run(["meetings", "--db", db, "--tz", "Mars/Olympus_Mons"])
        #expect(option.status == 64, "\(option)")
        #expect(option.stderr.contains("'--tz' is not a time zone") && option.stderr.contains("got 'Mars/Olympus_Mons'"), "\(option)")
        let env = MQA.run(["meetings", "--db", db], environment: ["MQA_TZ": "Berlin"])
        #expect(env.status == 64 && env.stderr.contains("MQA_TZ 'Berlin' is not a time zone"), "\(env)")
        let time = MQA.run(["meetings", "--db", db, "--at", "teatime"])
        #expect(time.status == 64 && time.stderr.contains("'--at' must be a time"), "\(time)")
        let clock = MQA.run(["meetings", "--db", db, "--at", "-1h"], environment: ["MQA_NOW": "soon"])
        #expect(clock.status == 64 && clock.stderr.contains("MQA_NOW 'soon'"), "\(clock)")
        // The clock is read only for a time that needs it.
        let unused = MQA.run(["meetings", "--db", db], environment: ["MQA_NOW": "soon"])
        #expect(unused.status == 0, "\(unused)")
        let atAlone = MQA.run(["report", "meeting", "m-a", "--db", db, "--at", "10:00"])
        #expect(atAlone.status == 64 && atAlone.stderr.contains("--at needs --uid"), "\(atAlone)")
        let allUid = MQA.run(["report", "meeting", "--all", "--out", dir.file("site"), "--db", db, "--uid", "bob"])
        #expect(allUid.status == 64, "\(allUid)")
        // The CSV has no incidents to open with: no silent report without the focus.
        let csv = MQA.run(["report", "meeting", "m-a", "--db", db, "--uid", "bob", "-f", "csv"])
        #expect(csv.status == 64 && csv.stderr.contains("csv does not hold") && csv.stdout.isEmpty, "\(csv)")
    }

    @Test func reportMeetingOpensWithTheParticipant() throws {
        store()
        let r = MQA.run(["report", "meeting", "m-a", "--db", db, "--uid", "bo", "--at", "11:00:05", "--tz", "Europe/Berlin"])
        #expect(r.status == 0, "\(r)")
        let focus = try #require(r.stdout.range(of: "## bob\n"), "\(r)")
        let verdict = try #require(r.stdout.range(of: "## Verdict"))
        #expect(focus.lowerBound < verdict.lowerBound)
        #expect(r.stdout.contains("2026-11-29T10:00:00.000Z (11:00:00 Europe/Berlin, +01:00)"), "\(r)")
        // JSON: the focus with T on the meeting's date (not today's).
        let json = MQA.run(["report", "meeting", "m-a", "--db", db, "--uid", "bob", "--at", "10:00:05", "--format", "json"],
                           environment: ["MQA_NOW": "2027-01-01T00:00:00Z"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        #expect(object["schema"] as? String == "mqa.meeting/1")
        let f = try #require(object["focus"] as? [String: Any])
        #expect(f["uid"] as? String == "bob")
        #expect((f["at"] as? NSNumber)?.int64Value == t0 + 5000)
        #expect(f["incidents"] is [Any])
        // A uid of another meeting, in this one: exit 1, naming both.
        let other = MQA.run(["report", "meeting", "m-a", "--db", db, "--uid", "alina"])
        #expect(other.status == 1 && other.stderr.contains(#"meeting "m-a" has no participant "alina""#), "\(other)")
    }

    @Test func textFormatsShowLocalTimesBesideUTC() {
        store()
        let tz = ["--tz", "Asia/Kolkata"]
        let list = MQA.run(["meetings", "--db", db] + tz)
        #expect(list.stdout.contains("start (Asia/Kolkata)") && list.stdout.contains("2026-11-29 15:30:00 +05:30"), "\(list)")
        let fleet = MQA.run(["report", "fleet", "--db", db] + tz)
        #expect(fleet.stdout.contains("start (Asia/Kolkata)") && fleet.stdout.contains("2026-11-29 15:30 +05:30"), "\(fleet)")
        let html = MQA.run(["report", "meeting", "m-a", "--db", db, "--format", "html"] + tz)
        #expect(html.stdout.contains("started 2026-11-29 10:00:00 UTC (15:30:00 Asia/Kolkata, +05:30)"), "\(html)")
        let tiers = MQA.run(["tiers", "--meeting", "m-a", "--uid", "al", "--db", db] + tz)
        #expect(tiers.status == 0 && tiers.stdout.contains("(15:30:00 Asia/Kolkata, +05:30)"), "\(tiers)")
        // JSON and CSV keep ms: the zone changes nothing there.
        let plain = MQA.run(["report", "fleet", "--db", db, "--format", "json"])
        let zoned = MQA.run(["report", "fleet", "--db", db, "--format", "json"] + tz)
        #expect(plain.stdout == zoned.stdout)
    }
}

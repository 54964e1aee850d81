import Foundation
import MQAQueries
import Testing
import MQABase
import MQAModel
import MQAStore
import MQAIngest

/// `mqa query --param`: text stays text (`007` is not `7`), a parameter
/// declared `integer` takes only a number, and a meeting or uid prefix is
/// completed as everywhere in the CLI.
@Suite struct QueryParamTests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    /// One subscription of `uid` to `publisher`'s camera in meeting `id`,
    /// so that the `tracks` query has a row for it.
    static func subscription(_ id: String, uid: String, publisher: String) -> String {
        let t0 = Lines.t0
        let m = Lines.quote(id), u = Lines.quote(uid)
        var out = "{\"ts\":\(t0),\"event\":\"meeting_join\",\"meeting\":\(m),\"uid\":\(u),\"engine\":\"sfu\",\"title\":\"T\"}\n"
        out += "{\"ts\":\(t0 + 1000),\"event\":\"stream_subscribe\",\"meeting\":\(m),\"uid\":\(u),"
        out += "\"publisher\":\(Lines.quote(publisher)),\"track\":\(Lines.quote(publisher + "-cam")),\"kind\":\"camera\"}\n"
        out += "{\"ts\":\(t0 + 12000),\"event\":\"meeting_leave\",\"meeting\":\(m),\"uid\":\(u)}\n"
        return out
    }

    /// Meetings "007", "7" and "70" (so "7" is both an id and a prefix of
    /// another), "m-741" and "m-742" (an ambiguous prefix), each
    /// subscriber's publisher named after its meeting.
    func store() {
        var log = ""
        log += Self.subscription("007", uid: "alice", publisher: "pub-007")
        log += Self.subscription("007", uid: "alfred", publisher: "pub-007")
        log += Self.subscription("007", uid: "bob", publisher: "pub-007")
        log += Self.subscription("7", uid: "alice", publisher: "pub-7")
        log += Self.subscription("70", uid: "alice", publisher: "pub-70")
        log += Self.subscription("m-741", uid: "alice", publisher: "pub-m-741")
        log += Self.subscription("m-742", uid: "alice", publisher: "pub-m-742")
        let r = MQA.run(["ingest", "--db", db, dir.write("log.ndjson", log)])
        #expect(r.status == 0, "\(r)")
    }

    /// The (subscriber, publisher) pairs `mqa query tracks` returns.
    func tracks(_ params: String...) throws -> [String] {
        let r = MQA.run(["query", "tracks", "--db", db, "--format", "json"] + params.flatMap { ["--param", $0] })
        #expect(r.status == 0, "\(r)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
        let rows = try #require(doc["rows"] as? [[String: Any]], "\(r)")
        return rows.map { "\($0["subscriber"] as? String ?? "?")/\($0["publisher"] as? String ?? "?")" }
    }

    /// Like any option given twice: refused, not the last value silently.
    @Test func aParameterGivenTwiceIsAUsageError() {
        store()
        let r = MQA.run(["query", "tracks", "--db", db, "--param", "meeting=007", "--param", "meeting=7"])
        #expect(r.status == 64 && r.stderr.contains("--param meeting is given more than once") && r.stdout.isEmpty, "\(r)")
    }

    /// An empty id matched nothing and exited 0, where `--meeting ''` is a usage error.
    @Test func anEmptyMeetingOrUidIsAUsageError() {
        store()
        for param in ["meeting=", "uid="] {
            let r = MQA.run(["query", "tracks", "--db", db, "--param", param])
            #expect(r.status == 64 && r.stderr.contains("--param \(param) must not be empty") && r.stdout.isEmpty, "\(r)")
        }
    }

    @Test func textThatLooksLikeANumberStaysText() throws {
        store()
        #expect(try tracks("meeting=007") == ["alfred/pub-007", "alice/pub-007", "bob/pub-007"])
        // An exact id wins over the prefix of "70".
        #expect(try tracks("meeting=7") == ["alice/pub-7"])
        #expect(try tracks("meeting=70") == ["alice/pub-70"])
    }

    @Test func aUniquePrefixResolvesAndAnAmbiguousOneListsTheCandidates() throws {
        store()
        #expect(try tracks("meeting=00") == ["alfred/pub-007", "alice/pub-007", "bob/pub-007"])
        #expect(try tracks("meeting=m-742") == ["alice/pub-m-742"])
        let ambiguous = MQA.run(["query", "tracks", "--db", db, "--param", "meeting=m-74"])
        #expect(ambiguous.status == 1, "\(ambiguous)")
        #expect(ambiguous.stdout.isEmpty)
        #expect(ambiguous.stderr.contains("\"m-741\", \"m-742\""), "\(ambiguous)")
        let none = MQA.run(["query", "tracks", "--db", db, "--param", "meeting=x"])
        #expect(none.status == 1 && none.stderr.contains("no meeting \"x\""), "\(none)")
    }

    @Test func aUidPrefixResolvesAmongTheMeetingsClients() throws {
        store()
        #expect(try tracks("meeting=007", "uid=b") == ["bob/pub-007"])
        #expect(try tracks("uid=alic", "meeting=m-741") == ["alice/pub-m-741"])
        // "al" is alice and alfred in 007, only alice in 7.
        #expect(try tracks("meeting=7", "uid=al") == ["alice/pub-7"])
        let ambiguous = MQA.run(["query", "tracks", "--db", db, "--param", "meeting=007", "--param", "uid=al"])
        #expect(ambiguous.status == 1, "\(ambiguous)")
        #expect(ambiguous.stderr.contains("\"alfred\", \"alice\" in meeting \"007\""), "\(ambiguous)")
        let none = MQA.run(["query", "tracks", "--db", db, "--param", "meeting=7", "--param", "uid=bob"])
        #expect(none.status == 1 && none.stderr.contains("has no client \"bob\""), "\(none)")
    }

    @Test func anIntegerParameterTakesANumberAndRefusesText() throws {
        let f = dir.simulated("sim.ndjson", meetings: 2, seed: 5)
        #expect(MQA.run(["ingest", "--db", db, f]).status == 0)
        func stalls(_ limit: String) -> MQA.Result {
            MQA.run(["query", "stalls-by-track", "--db", db, "--format", "csv", "--param", "limit=\(limit)"])
        }
        let all = MQA.run(["query", "stalls-by-track", "--db", db, "--format", "csv"])
        let rows = all.stdout.split(separator: "\n").count - 1
        #expect(all.status == 0 && rows > 2, "\(all)")
        let two = stalls("2")
        #expect(two.status == 0, "\(two)")
        #expect(two.stdout.split(separator: "\n").count - 1 == 2, "\(two)")
        for bad in ["two", "2.5", "", "0x2"] {
            let r = stalls(bad)
            #expect(r.status == 64, "\(bad): \(r)")
            #expect(r.stderr.contains("--param limit takes an integer, got '\(bad)'"), "\(r)")
            #expect(r.stdout.isEmpty)
        }
    }

    @Test func declarationsAreParsedAndMatchTheirQueries() throws {
        let sql = """
            -- Something.
            -- param: :limit integer optional  at most this many
            -- param: :meeting text
            SELECT :meeting LIMIT :limit;
            """
        #expect(try Queries.declaredParameters(in: sql) == [
            QueryParameter(name: "limit", kind: .integer, optional: true),
            QueryParameter(name: "meeting", kind: .text, optional: false),
        ])
        #expect(throws: QueryDeclarationError.self) { try Queries.declaredParameters(in: "-- param: :n number\n") }
        #expect(throws: QueryDeclarationError.self) { try Queries.declaredParameters(in: "-- param: limit integer\n") }
        #expect(throws: QueryDeclarationError.self) {
            try Queries.declaredParameters(in: "-- param: :a text\n-- param: :a integer\n")
        }
        // Every shipped query's declarations name parameters its SQL uses.
        let store = dir.file("empty.sqlite")
        #expect(MQA.run(["ingest", "--db", store, dir.write("one.ndjson", Lines.meeting("m-1"))]).status == 0)
        for (name, _) in Queries.named {
            let r = MQA.run(["query", name, "--db", store, "--param", "meeting=m-1"])
            let takesMeeting = name == "tracks"
            #expect(r.status == (takesMeeting ? 0 : 64), "\(name): \(r)")
            #expect(!r.stderr.contains("declares"), "\(name): \(r)")
        }
    }

    @Test func aFailedBindingFailsTheStatementInsteadOfRunningWithNull() throws {
        let db = try Database(path: dir.file("bind.sqlite"), access: .readWrite)
        let s = try db.prepare("SELECT ?1")
        s.bind(2, Int64(5))  // no parameter 2: SQLITE_RANGE
        #expect(throws: DatabaseError.self) { try s.step() }
        // The error goes with the reset; the statement is usable again.
        s.bind(1, Int64(5))
        #expect(try s.step())
        #expect(s.int64(0) == 5)
    }
}

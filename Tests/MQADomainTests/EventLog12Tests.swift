import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Format 1.2 (shared/spec/event-log.md, "Client and network"): the client
/// fields of `meeting_join`, `network_change`, and the `p2p` engine.
func joinLine(_ fields: String, engine: String = "sfu") -> String {
    #"{"ts":1795946400000,"event":"meeting_join","meeting":"m-1","uid":"alice","engine":""# + engine + "\""
        + (fields.isEmpty ? "" : ",") + fields + "}"
}

@Suite struct EventLog12ValidationTests {
    static let x256 = String(repeating: "x", count: 256)
    static let x257 = String(repeating: "x", count: 257)
    /// 256 characters of two bytes each: 512 bytes, still within the bound.
    static let e256 = String(repeating: "é", count: 256)
    static let e257 = String(repeating: "é", count: 257)
    /// 257 characters, 256 of them written as escapes.
    static let escaped257 = String(repeating: #"\u0041"#, count: 256) + "B"

    @Test("meeting_join client fields", arguments: [
        // platform: a closed list, optional
        (#""platform":"ios""#, nil),
        (#""platform":"web""#, nil),
        (#""platform":null"#, nil),
        (#""platform":"iOS""#, #"platform: "iOS" is not one of "ios", "android", "macos", "windows", "linux", "web""#),
        (#""platform":"blackberry""#, #"platform: "blackberry" is not one of "ios", "android", "macos", "windows", "linux", "web""#),
        (#""platform":"""#, #"platform: "" is not one of "ios", "android", "macos", "windows", "linux", "web""#),
        (#""platform":3"#, "platform: must be a string, not a number"),
        // netType: a closed list, optional
        (#""netType":"cellular""#, nil),
        (#""netType":"none""#, nil),
        (#""netType":"5g""#, #"netType: "5g" is not one of "wifi", "cellular", "ethernet", "other", "none""#),
        (#""netType":true"#, "netType: must be a string, not a boolean"),
        // open strings of 1–256 characters
        (#""osVersion":"17.4.1""#, nil),
        (#""osVersion":"""#, "osVersion: empty"),
        (#""osVersion":["17"]"#, "osVersion: must be a string, not an array"),
        (#""sdkVersion":"5.3.0""#, nil),
        (#""sdkVersion":"""#, "sdkVersion: empty"),
        (#""sdkVersion":5.3"#, "sdkVersion: must be a string, not a number"),
        (#""appVersion":"2026.11.2""#, nil),
        (#""appVersion":"""#, "appVersion: empty"),
        (#""device":"iPhone15,2""#, nil),
        (#""device":"Chrome 131","osVersion":null"#, nil),
        (#""device":"""#, "device: empty"),
        (#""device":{}"#, "device: must be a string, not an object"),
        (#""device":"\u0041""#, nil),  // one character after decoding
        ("\"device\":\"\(x256)\"", nil),
        ("\"device\":\"\(x257)\"", "device: 257 characters, at most 256 allowed"),
        ("\"appVersion\":\"\(e256)\"", nil),  // 512 bytes, 256 characters
        ("\"appVersion\":\"\(e257)\"", "appVersion: 257 characters, at most 256 allowed"),
        ("\"sdkVersion\":\"\(escaped257)\"", "sdkVersion: 257 characters, at most 256 allowed"),
        // everything at once, and the fields' check order is the table's
        (#""title":"t","platform":"android","osVersion":"14","sdkVersion":"5.2.3","appVersion":"1","device":"SM-S918B","netType":"wifi""#, nil),
        (#""netType":"lan","osVersion":"""#, "osVersion: empty"),
    ])
    func join(fields: String, expected: String?) {
        let line = joinLine(fields)
        #expect(reason(line) == expected, "\(line)")
    }

    @Test("engine p2p", arguments: [("sfu", nil), ("cdn", nil), ("p2p", nil),
                                    ("P2P", #"engine: "P2P" is not one of "sfu", "cdn", "p2p""#),
                                    ("mesh", #"engine: "mesh" is not one of "sfu", "cdn", "p2p""#)])
    func engine(engine: String, expected: String?) {
        #expect(reason(joinLine("", engine: engine)) == expected)
    }

    @Test("network_change", arguments: [
        (#""netType":"cellular","detail":"wifi→cellular""#, nil),
        (#""netType":"wifi""#, nil),
        (#""netType":"ethernet","detail":null"#, nil),
        ("", "netType: missing"),
        (#""netType":null"#, "netType: must be a string, not null"),
        (#""netType":"lte""#, #"netType: "lte" is not one of "wifi", "cellular", "ethernet", "other", "none""#),
        (#""netType":"other","detail":"""#, "detail: empty"),
        (#""netType":"other","detail":7"#, "detail: must be a string, not a number"),
        ("\"netType\":\"other\",\"detail\":\"\(x256)\"", nil),
        ("\"netType\":\"other\",\"detail\":\"\(x257)\"", "detail: 257 characters, at most 256 allowed"),
    ])
    func networkChange(fields: String, expected: String?) {
        let line = contextLine("network_change", fields)
        #expect(reason(line) == expected, "\(line)")
        if expected == nil { #expect(parse(line).1.kind == .networkChange) }
    }

    /// The new fields come after the old ones: a 1.0 join keeps its
    /// canonical bytes (the duplicate key of stored events), and the new
    /// ones are written in the table's order, whatever the line's.
    @Test func canonicalForm() {
        for (fields, canonical) in [
            (#""title":"Weekly""#, #"{"engine":"sfu","title":"Weekly"}"#),
            (#""netType":"wifi","device":"Pixel 8","sdk":"4.1","platform":"android","sdkVersion":"5.3.0","osVersion":"15","appVersion":"2026.11.2""#,
             #"{"engine":"sfu","platform":"android","osVersion":"15","sdkVersion":"5.3.0","appVersion":"2026.11.2","device":"Pixel 8","netType":"wifi"}"#),
            (#""device":"Mic \"2\"","osVersion":null"#, #"{"engine":"sfu","device":"Mic \"2\""}"#),
        ] {
            let (outcome, p) = parse(joinLine(fields))
            #expect(outcome == .event)
            var bytes: [UInt8] = []
            p.appendCanonicalPayload(to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == canonical)
            #expect(p.payload().canonicalJSON == canonical)
            var again = LineParser(nowMs: 0)
            #expect(bytes.withUnsafeBufferPointer { again.payload(of: p.kind, canonicalJSON: $0) } == p.payload())
        }
    }

    @Test func networkChangeIsAContextEvent() {
        #expect(EventKind.networkChange.isContext)
        #expect(EventKind(name: "network_change") == .networkChange)
        #expect(EventKind.networkChange.rawValue == 24)
        #expect(!EventKind.meetingJoin.isContext)
    }

    @Test func qualityFeedEngines() {
        #expect(EventCatalog.hasQualityFeed(engine: "sfu"))
        #expect(EventCatalog.hasQualityFeed(engine: "p2p"))
        #expect(!EventCatalog.hasQualityFeed(engine: "cdn"))
    }
}

@Suite struct EventLog12StoreTests {
    static let lines = [
        joinLine(#""title":"Standup","platform":"ios","osVersion":"17.4.1","sdkVersion":"5.3.0","appVersion":"2026.11.2","device":"iPhone15,2","netType":"wifi""#),
        #"{"ts":1795946430000,"event":"network_change","meeting":"m-1","uid":"alice","netType":"cellular","detail":"wifi→cellular"}"#,
        #"{"ts":1795946440000,"event":"network_change","meeting":"m-1","uid":"alice","netType":"none"}"#,
        #"{"ts":1795946450000,"event":"reconnect","meeting":"m-1","uid":"alice"}"#,
        #"{"ts":1795946460000,"event":"meeting_join","meeting":"m-1","uid":"bob","engine":"p2p","device":"Chrome \"131\"","platform":"web","osVersion":"é\u00e9"}"#,
    ]

    @Test func exportRoundTripsTheNewFields() throws {
        let s = Scratch()
        let first = try EventStore(path: s.db)
        let summary = try Ingester(store: first).ingest(paths: [s.write("a.ndjson", Self.lines)])
        #expect(summary.events == 5 && summary.rejected == 0 && summary.ignored == 0)
        let exported = try exportText(first)
        #expect(exported.split(separator: "\n").count == 5)
        #expect(exported.contains(#""engine":"sfu","title":"Standup","platform":"ios","osVersion":"17.4.1","sdkVersion":"5.3.0","appVersion":"2026.11.2","device":"iPhone15,2","netType":"wifi"}"#))
        #expect(exported.contains(#""event":"network_change","meeting":"m-1","uid":"alice","netType":"cellular","detail":"wifi→cellular"}"#))
        #expect(exported.contains(#""event":"network_change","meeting":"m-1","uid":"alice","netType":"none"}"#))
        #expect(exported.contains(#""engine":"p2p","platform":"web","osVersion":"éé","device":"Chrome \"131\""}"#))
        let s2 = Scratch()
        let second = try EventStore(path: s2.db)
        let again = try Ingester(store: second).ingest(paths: [s2.write("e.ndjson", exported.split(separator: "\n").map(String.init))])
        #expect(again.events == 5 && again.rejected == 0)
        #expect(try exportText(second) == exported)
        #expect(try second.check().isClean)
        // Re-ingesting into the first store: every line a duplicate.
        let dup = try Ingester(store: first).ingest(paths: [s.write("b.ndjson", exported.split(separator: "\n").map(String.init))])
        #expect(dup.duplicates == 5 && dup.events == 0)
    }

    @Test func theStoreKnowsTheNewKind() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        let select = try store.db.prepare("SELECT name FROM event_kinds WHERE kind = 24")
        #expect(try select.step())
        #expect(select.string(0) == "network_change")
    }

    /// `network_change` is context: it is in `ClientLog.context`, and the
    /// client fields and changes reach `MeetingContext`.
    @Test func theContextReadsThem() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", Self.lines + [
            // a rejoin updates the SDK version; the last value holds
            #"{"ts":1795946470000,"event":"meeting_join","meeting":"m-1","uid":"alice","engine":"sfu","sdkVersion":"5.3.1","netType":"cellular"}"#,
        ])])
        let log = try #require(try store.meetingLog("m-1"))
        let alice = try #require(log.clients.first { $0.uid == "alice" })
        #expect(alice.context.map(\.payload.kind) == [.networkChange, .networkChange])
        #expect(!alice.events.contains { $0.payload.kind == .networkChange })
        let c = try #require(MeetingContext.build(log).participant("alice"))
        #expect(c.client.platform == "ios" && c.client.osVersion == "17.4.1" && c.client.device == "iPhone15,2")
        #expect(c.client.sdkVersion == "5.3.1" && c.client.appVersion == "2026.11.2" && c.client.netType == "cellular")
        #expect(c.networkChanges.map(\.netType) == ["cellular", "none"])
        #expect(c.networkChanges.first?.detail == "wifi→cellular")
        #expect(c.networkPath == ["wifi", "cellular", "none", "cellular"])
        let bob = try #require(MeetingContext.build(log).participant("bob"))
        #expect(bob.client.platform == "web" && bob.client.sdkVersion == nil && bob.networkPath.isEmpty)
    }

    /// "The last value before a report holds": a rejoin after the last
    /// report does not change who the client was for its figures; one
    /// before a report does.
    @Test func aRejoinAfterTheLastReportChangesNoClientField() throws {
        func sdk(rejoinAt: Int64) throws -> String? {
            let s = Scratch()
            let store = try EventStore(path: s.db)
            let join = #"{"ts":\#(t0),"event":"meeting_join","meeting":"m-1","uid":"alice","engine":"sfu","sdkVersion":"5.2.0"}"#
            let rejoin = #"{"ts":\#(t0 + rejoinAt),"event":"meeting_join","meeting":"m-1","uid":"alice","engine":"sfu","sdkVersion":"5.3.1"}"#
            let reports = (1...10).map { qr(t0 + Int64($0) * 2000) }
            _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", [join] + reports + [rejoin])])
            try store.refreshSummaries()
            let log = try #require(try store.meetingLog("m-1"))
            let fromContext = MeetingContext.build(log).participant("alice")?.client.sdkVersion
            // Every reader agrees: the cohorts' store path and tune --by.
            let fromStore = try store.cohortMeetings().first?.participants.first?.client.sdkVersion
            let client = try #require(log.clients.first)
            #expect(fromStore == fromContext)
            #expect(CohortTuning.value(of: client, in: log, field: .sdkVersion) == fromContext)
            return fromContext
        }
        #expect(try sdk(rejoinAt: 30_000) == "5.2.0")
        #expect(try sdk(rejoinAt: 20_000) == "5.3.1", "at the last report's ms: before it")
        #expect(try sdk(rejoinAt: 9_000) == "5.3.1")
    }

    /// The spec: p2p has the quality feed as sfu does. The same log under
    /// either engine gives the same figures; under cdn there are none.
    @Test func p2pIsAnalysedAsSFU() throws {
        func analysis(_ engine: String) throws -> MeetingAnalysis {
            var lines = [#"{"ts":1795946400000,"event":"meeting_join","meeting":"m-1","uid":"alice","engine":""# + engine + #""}"#]
            lines += (1...30).map { qr(t0 + Int64($0) * 2000, loss: $0 > 15 ? "9" : "0.4", mos: $0 > 15 ? "2.1" : "4.31") }
            lines.append(#"{"ts":1795946470000,"event":"meeting_leave","meeting":"m-1","uid":"alice"}"#)
            let s = Scratch()
            let store = try EventStore(path: s.db)
            let summary = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", lines)])
            #expect(summary.rejected == 0)
            let log = try #require(try store.meetingLog("m-1"))
            #expect(log.engine == engine)
            return MeetingAnalysis.analyze(log, config: TierConfig())
        }
        let sfu = try analysis("sfu"), p2p = try analysis("p2p"), cdn = try analysis("cdn")
        #expect(!p2p.isCDN && cdn.isCDN)
        #expect(p2p.participantsJSON == sfu.participantsJSON)
        #expect(p2p.tiersJSON().rendered().replacingOccurrences(of: #""engine":"p2p""#, with: #""engine":"sfu""#)
                == sfu.tiersJSON().rendered())
        #expect(sfu.tiersJSON().rendered().contains(#""engine":"sfu","qualityData":true,"notice":null,"#))
        #expect(cdn.tiersJSON().rendered().contains(#""engine":"cdn","qualityData":false,"notice":"no quality data (CDN engine)","#))
        #expect(p2p.participants[0].warmReports > 0)
        #expect(p2p.participants[0].tierMs[.poor] + p2p.participants[0].tierMs[.bad] > 0)
        #expect(FleetScore(p2p).lowTierMs == FleetScore(sfu).lowTierMs)
    }

    /// Context only: the same numbers with and without network changes.
    @Test func networkChangesChangeNoFigure() throws {
        var plain = [joinLine(#""platform":"android","netType":"wifi""#)]
        plain += (1...30).map { qr(t0 + Int64($0) * 2000, loss: $0 > 15 ? "9" : "0.4") }
        plain.append(#"{"ts":1795946470000,"event":"meeting_leave","meeting":"m-1","uid":"alice"}"#)
        let changes = [
            #"{"ts":1795946431000,"event":"network_change","meeting":"m-1","uid":"alice","netType":"cellular","detail":"wifi→cellular"}"#,
            #"{"ts":1795946390000,"event":"network_change","meeting":"m-1","uid":"carol","netType":"wifi"}"#,
        ]
        func analysed(_ lines: [String]) throws -> (MeetingAnalysis, MeetingLog) {
            let s = Scratch()
            let store = try EventStore(path: s.db)
            _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", lines)])
            let log = try #require(try store.meetingLog("m-1"))
            return (MeetingAnalysis.analyze(log, config: TierConfig()), log)
        }
        let (a, _) = try analysed(plain)
        let (b, logB) = try analysed(plain + changes)
        #expect(a.tiersJSON() == b.tiersJSON())
        #expect(a.participantsJSON == b.participantsJSON)
        #expect(logB.clients.map(\.uid) == ["alice"])
        #expect(logB.contextOnly.map(\.uid) == ["carol"])
    }
}

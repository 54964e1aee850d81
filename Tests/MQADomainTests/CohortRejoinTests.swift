import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
@testable import MQAReports
@testable import MQASimulator

/// A participant who rejoins a meeting as another client (another device,
/// platform or SDK version) is counted under each client for the figures
/// measured on it: event-log.md 1.2, "the last value before a report
/// holds". Alice stalls 10 s on her phone (SDK 5.2.0), leaves, and comes
/// back from a browser (SDK 5.3.0) that stalls nothing: the stall is 5.2's.
@Suite struct CohortRejoinTests {
    static func logs(in s: Scratch) -> [String] {
        func line(_ dt: Int64, _ uid: String, _ rest: String) -> String {
            #"{"ts":\#(t0 + dt),"meeting":"m-1","uid":"\#(uid)","# + rest + "}"
        }
        let phone = #""platform":"ios","osVersion":"17.4.1","sdkVersion":"5.2.0","device":"iPhone15,2","netType":"wifi""#
        // The browser names no osVersion: another platform is another
        // client, so her OS is unknown from the rejoin on (not iOS 17.4.1).
        let browser = #""platform":"web","sdkVersion":"5.3.0","device":"Chrome 131","netType":"wifi""#
        var alice = [
            line(0, "alice", #""event":"meeting_join","engine":"sfu","# + phone),
            line(1000, "alice", #""event":"stream_subscribe","publisher":"bob","track":"bob-cam","kind":"camera""#),
            line(2000, "alice", #""event":"receive_stream_status","publisher":"bob","track":"bob-cam","timedOut":false"#),
            line(80_000, "alice", #""event":"receive_stream_status","publisher":"bob","track":"bob-cam","timedOut":true"#),
            line(90_000, "alice", #""event":"receive_stream_status","publisher":"bob","track":"bob-cam","timedOut":false"#),
            line(100_000, "alice", #""event":"meeting_leave""#),
            line(110_000, "alice", #""event":"meeting_join","engine":"sfu","# + browser),
            line(111_000, "alice", #""event":"stream_subscribe","publisher":"bob","track":"bob-cam","kind":"camera""#),
            line(112_000, "alice", #""event":"receive_stream_status","publisher":"bob","track":"bob-cam","timedOut":false"#),
        ]
        alice += (1...49).map { qr(t0 + Int64($0) * 2000, uid: "alice", mos: "3.1") }
        alice += (56...100).map { qr(t0 + Int64($0) * 2000, uid: "alice", mos: "4.3") }
        var bob = [line(0, "bob", #""event":"meeting_join","engine":"sfu","platform":"android","sdkVersion":"5.3.0","netType":"wifi""#)]
        bob += (1...100).map { qr(t0 + Int64($0) * 2000, uid: "bob") }
        return [s.write("a.ndjson", alice), s.write("b.ndjson", bob)]
    }

    @Test func aRejoinAsAnotherClientSplitsItsFigures() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: CohortRejoinTests.logs(in: s))
        try store.refreshSummaries()
        let stored = try store.cohortMeetings()
        let log = try #require(try store.meetingLog("m-1"))
        #expect(stored == [try CohortMeeting(log: log)])

        // The meeting report's incident line names the phone she stalled on.
        let md = MeetingReport(log: log, config: TierConfig()).markdown
        #expect(md.contains("alice on iPhone15,2, SDK 5.2.0)"), "\(md)")
        #expect(md.contains("| alice, from +1:50.000 | web "))

        let a = try #require(stored.first?.participants.first { $0.uid == "alice" })
        // Whole, she is the client of her last report.
        #expect(a.client.sdkVersion == "5.3.0" && a.client.osVersion == nil)
        #expect(a.splitFields == [.platform, .osVersion, .sdkVersion, .device])
        let sdk = a.pieces.filter { $0.pieceOf == .sdkVersion }
        #expect(sdk.map(\.client.sdkVersion) == ["5.2.0", "5.3.0"])
        #expect(sdk.map(\.stalledMs) == [10_000, 0] && a.stalledMs == 10_000)
        #expect(sdk.reduce(0) { $0 + $1.watchedMs } == a.watchedMs && sdk.allSatisfy { $0.watchedMs > 0 })
        #expect(sdk.reduce(0) { $0 + $1.measuredMs } == a.measuredMs)
        #expect(sdk.map(\.mosP50) == [3.1, 4.3])
        #expect(a.pieces.filter { $0.pieceOf == .device }.map(\.client.device) == ["iPhone15,2", "Chrome 131"])

        let bySDK = CohortTable(stored, by: .sdkVersion)
        let old = try #require(bySDK.cohorts.first { $0.value == "5.2.0" })
        let new = try #require(bySDK.cohorts.first { $0.value == "5.3.0" })
        #expect(old.participants == 1 && old.stalledMs == 10_000)
        #expect(new.participants == 2 && new.stalledMs == 0)
        #expect(bySDK.people == 2 && bySDK.splitParticipants == 1)
        let json = CohortsReport(bySDK).json.rendered()
        #expect(json.contains(#""changedValue":1,"changedNetwork":0"#))
        // Her iOS time under 17.4.1, her browser time unknown (with bob's).
        let byOS = CohortTable(stored, by: .osVersion)
        #expect(byOS.splitParticipants == 1 && byOS.cohorts.map(\.participants) == [1] && byOS.unknown.participants == 2)
        #expect(byOS.cohorts.first?.stalledMs == 10_000)
        // A field that did not change keeps her whole, once.
        #expect(CohortTable(stored, by: .netType).cohorts.map(\.participants) == [2])
        #expect(TrendTable(stored, every: .day).rows.map(\.figures.participants) == [2])

        // Asking the store to split by one field only leaves the others whole.
        let onlyNet = try store.cohortMeetings(splitting: [.netType])
        #expect(onlyNet.first?.participants.allSatisfy { $0.pieces.isEmpty } == true)

        // The partials name the fields, and read back to the same tables.
        let partials = try CohortPartials(stored)
        let text = partials.json.rendered()
        #expect(text.contains(#""scope":"whole","splitBy":["platform","osVersion","sdkVersion","device"]"#))
        #expect(partials.participants == 2)
        let back = try CohortPartials.parse(Data(text.utf8))
        for field in CohortField.allCases {
            #expect(CohortTable(back.meetings, by: field) == CohortTable(stored, by: field), "\(field)")
        }

        // tune --by sdkVersion: her phone's stall is 5.2's, and she is a
        // client of both cohorts.
        let tuning = CohortTuning([log], by: .sdkVersion, configs: [TierConfig()], options: TuningOptions())
        let stalls = Dictionary(uniqueKeysWithValues: tuning.cohorts.map { ($0.value, $0.stalls) })
        #expect(stalls["5.2.0"] == 1 && stalls["5.3.0"] == 0)
        #expect(tuning.cohorts.map(\.clients).reduce(0, +) == 3)
        // Reports count where they were measured: her 49 phone reports are
        // 5.2's, and the cohorts' add up to the fleet's (not 49 more).
        let reports = Dictionary(uniqueKeysWithValues: tuning.cohorts.map { ($0.value, $0.reports) })
        #expect(reports["5.2.0"] == 49)
        #expect(tuning.cohorts.reduce(0) { $0 + $1.reports } == TuningCorpus([log]).reportCount)
    }

    /// A first join that names no version (an app of an older SDK) leaves
    /// the version unknown until a join names one: the update's version did
    /// not measure what came before it.
    @Test func aVersionNamedOnlyLaterDoesNotReachBack() throws {
        let s = Scratch()
        func line(_ dt: Int64, _ rest: String) -> String {
            #"{"ts":\#(t0 + dt),"meeting":"m-1","uid":"alice","# + rest + "}"
        }
        var alice = [
            line(0, #""event":"meeting_join","engine":"sfu""#),
            line(1000, #""event":"stream_subscribe","publisher":"bob","track":"bob-cam","kind":"camera""#),
            line(2000, #""event":"receive_stream_status","publisher":"bob","track":"bob-cam","timedOut":false"#),
            line(30_000, #""event":"receive_stream_status","publisher":"bob","track":"bob-cam","timedOut":true"#),
            line(35_000, #""event":"receive_stream_status","publisher":"bob","track":"bob-cam","timedOut":false"#),
            line(50_000, #""event":"meeting_leave""#),
            line(52_000, #""event":"meeting_join","engine":"sfu","platform":"web","sdkVersion":"5.3.0""#),
        ]
        alice += (1...24).map { qr(t0 + Int64($0) * 2000) } + (27...40).map { qr(t0 + Int64($0) * 2000) }
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", alice)])
        try store.refreshSummaries()
        let stored = try store.cohortMeetings()
        #expect(stored == [try CohortMeeting(log: try #require(try store.meetingLog("m-1")))])
        let a = try #require(stored.first?.participants.first)
        let sdk = a.pieces.filter { $0.pieceOf == .sdkVersion }
        #expect(sdk.map(\.client.sdkVersion) == [nil, "5.3.0"] && sdk.map(\.stalledMs) == [5000, 0])
        let table = CohortTable(stored, by: .sdkVersion)
        #expect(table.unknown.participants == 1 && table.unknown.stalledMs == 5000)
        #expect(table.cohorts.map(\.value) == ["5.3.0"] && table.cohorts[0].stalledMs == 0)
        #expect(table.splitParticipants == 1 && table.people == 1)
    }

    /// Property: a simulated fleet in which a third of the clients rejoin
    /// mid-call as another client (random fields changed, some left out).
    /// The store path equals each meeting's analysis, every piece set sums
    /// to its participant, each person is counted once per grouping's
    /// people, and the partials give the same table for every field.
    @Test func randomRejoinsSplitConsistently() throws {
        let s = Scratch()
        var bytes: [UInt8] = []
        _ = try Simulator(seed: 11, meetings: 8).write { bytes.append(contentsOf: $0) }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        // Each client's first join and last line time.
        var firstJoin: [String: [String: Any]] = [:], lastTs: [String: Int64] = [:]
        for line in lines {
            guard let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let meeting = o["meeting"] as? String, let uid = o["uid"] as? String,
                  let ts = (o["ts"] as? NSNumber)?.int64Value else { continue }
            let key = meeting + "\u{1}" + uid
            if o["event"] as? String == "meeting_join", firstJoin[key] == nil { firstJoin[key] = o }
            lastTs[key] = max(lastTs[key] ?? .min, ts)
        }
        var rng = SplitMix64(seed: 7)
        var extra: [String] = []
        for (key, join) in firstJoin.sorted(by: { $0.key < $1.key }) where rng.next() % 3 == 0 {
            guard let start = (join["ts"] as? NSNumber)?.int64Value, let end = lastTs[key], end - start > 20_000 else { continue }
            var rejoin = join
            rejoin["ts"] = start + 10_000 + Int64(rng.next() % UInt64(end - start - 10_000))
            for field in ["platform", "osVersion", "sdkVersion", "appVersion", "device"] {
                switch rng.next() % 3 {
                case 0: rejoin[field] = nil  // left out: the earlier value holds
                case 1: if field == "platform" { rejoin[field] = ["ios", "web", "android"][Int(rng.next() % 3)] }
                        else { rejoin[field] = "\(field)-\(rng.next() % 3)" }
                default: break  // repeated
                }
            }
            let data = try JSONSerialization.data(withJSONObject: rejoin, options: [.sortedKeys])
            extra.append(String(decoding: data, as: UTF8.self))
        }
        #expect(extra.count >= 5, "\(extra.count) rejoins")
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: [s.write("fleet.ndjson", lines), s.write("rejoins.ndjson", extra)])
        try store.refreshSummaries()
        let stored = try store.cohortMeetings()
        for m in stored {
            #expect(try CohortMeeting(log: try #require(try store.meetingLog(m.meeting))) == m, "meeting \(m.meeting)")
        }
        let people = stored.flatMap(\.participants)
        let split = people.filter { !$0.pieces.isEmpty }
        #expect(split.contains { $0.splitFields.contains { $0 != .netType } }, "no rejoin split a client field")
        for p in split {
            for field in p.splitFields {
                let pieces = p.pieces.filter { $0.pieceOf == field }
                #expect(pieces.count >= 2 && Set(pieces.map { $0.client[field] }).count == pieces.count)
                #expect(pieces.reduce(0) { $0 + $1.watchedMs } == p.watchedMs)
                #expect(pieces.reduce(0) { $0 + $1.stalledMs } == p.stalledMs)
                #expect(pieces.reduce(0) { $0 + $1.measuredMs } == p.measuredMs)
                #expect(pieces.reduce(0) { $0 + $1.lowTierMs } == p.lowTierMs)
                #expect(pieces.reduce(0) { $0 + $1.abnormalDisconnects } == p.abnormalDisconnects)
                #expect(pieces.flatMap(\.firstFrameMs).sorted() == p.firstFrameMs.sorted())
            }
        }
        let back = try CohortPartials.parse(Data(try CohortPartials(stored).json.rendered().utf8))
        for field in CohortField.allCases {
            let table = CohortTable(stored, by: field)
            #expect(table.people == people.count)
            #expect(table.splitParticipants == split.count { $0.splitFields.contains(field) })
            #expect(CohortTable(back.meetings, by: field) == table, "\(field)")
            // Asking for this field alone splits the same way.
            #expect(CohortTable(try store.cohortMeetings(splitting: [field]), by: field) == table, "\(field) alone")
        }
    }

    /// A rejoin that leaves a field out keeps it (a reconnect of the same
    /// client may repeat the fields or not); one naming another platform is
    /// another client, whose unnamed fields are unknown. The network is
    /// not the client's and carries over.
    @Test func anotherPlatformIsAnotherClient() {
        func join(_ fields: [String: String]) -> EventPayload {
            EventPayload(.meetingJoin, fields.mapValues { PayloadValue.string($0) })
        }
        var c = ParticipantContext.ClientInfo()
        c.update(from: join(["platform": "ios", "osVersion": "17.4.1", "sdkVersion": "5.2.0", "device": "iPhone15,2",
                             "netType": "wifi"]))
        c.update(from: join(["sdkVersion": "5.2.1"]))
        #expect(c.platform == "ios" && c.osVersion == "17.4.1" && c.sdkVersion == "5.2.1" && c.device == "iPhone15,2")
        c.update(from: join(["platform": "ios", "appVersion": "2026.11.2"]))
        #expect(c.osVersion == "17.4.1" && c.appVersion == "2026.11.2")
        c.update(from: join(["platform": "web", "sdkVersion": "5.3.0"]))
        #expect(c.platform == "web" && c.sdkVersion == "5.3.0" && c.osVersion == nil && c.device == nil && c.appVersion == nil)
        #expect(c.netType == "wifi")
    }
}

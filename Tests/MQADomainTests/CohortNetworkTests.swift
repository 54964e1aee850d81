import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Cohorts by `netType` attribute each figure to the network it was
/// measured on (event-log.md 1.2: "the last value before a report holds";
/// `Docs/cohorts.md`): a client that moves from Wi-Fi to cellular and
/// stalls there stalls on cellular.
@Suite struct CohortNetworkTests {
    typealias Mark = ClientFieldTimeline.Mark

    @Test func theTimelineFollowsJoinsAndChanges() {
        let t = ClientFieldTimeline(marks: [Mark(ts: 100, value: "cellular", isJoin: false), Mark(ts: 0, value: "wifi", isJoin: true),
                                        Mark(ts: 150, value: "cellular", isJoin: false), Mark(ts: 200, value: "wifi", isJoin: false)])
        #expect(t.values == ["wifi", "cellular", "wifi"] && t.starts == [.min, 100, 200])
        #expect(t.changes)
        #expect(t.stretch(at: -5) == 0 && t.stretch(at: 99) == 0 && t.stretch(at: 100) == 1 && t.stretch(at: 250) == 2)
        // Before a first mark that is a change, the network is unknown.
        let late = ClientFieldTimeline(marks: [Mark(ts: 50, value: "wifi", isJoin: false)])
        #expect(late.values == [nil, "wifi"] && late.changes)
        // One network throughout: nothing to split.
        #expect(!ClientFieldTimeline(marks: [Mark(ts: 0, value: "wifi", isJoin: true), Mark(ts: 9, value: "wifi", isJoin: false)]).changes)
        #expect(!ClientFieldTimeline(marks: []).changes)
        // A join and a change of one millisecond: the change is the later word.
        let same = ClientFieldTimeline(marks: [Mark(ts: 0, value: "cellular", isJoin: false), Mark(ts: 0, value: "wifi", isJoin: true)])
        #expect(same.values == ["wifi", "cellular"] && same.starts == [.min, 0])
        // A change undone in the same millisecond leaves no stretch.
        let undone = ClientFieldTimeline(marks: [Mark(ts: 0, value: "wifi", isJoin: true), Mark(ts: 5, value: "cellular", isJoin: false),
                                             Mark(ts: 5, value: "wifi", isJoin: false)])
        #expect(undone.values == ["wifi"] && !undone.changes)
        var seen: [(Int, Int64)] = []
        t.overlaps(from: 50, to: 250) { seen.append(($0, $1)) }
        #expect(seen.map(\.0) == [0, 1, 2] && seen.map(\.1) == [50, 100, 50])
    }

    @Test func figuresAreSplitAtTheChange() {
        let t = ClientFieldTimeline(marks: [Mark(ts: 0, value: "wifi", isJoin: true), Mark(ts: 1000, value: "cellular", isJoin: false)])
        var p = CohortParticipant(uid: "a", engine: "sfu", client: .init(), watchedMs: 1900, stalledMs: 300, lowTierMs: 600,
                                  measuredMs: 1800, mosP50: 4.0, abnormalDisconnects: 1, firstFrameMs: [100, 50])
        p.client.platform = "ios"
        let subs = [
            Subscription(subscriber: "a", publisher: "b", track: "b-cam", kind: "camera", subscribeTs: 0, endTs: 2000,
                         firstFrameTs: 100, stalls: [Stall(start: 900, end: 1200, open: false)]),
            Subscription(subscriber: "a", publisher: "c", track: "c-cam", kind: "camera", subscribeTs: 1500, endTs: 2000,
                         firstFrameTs: 1550, stalls: []),
        ]
        let holds = [TierHold(tier: .good, from: 100, to: 900), TierHold(tier: .poor, from: 900, to: 1500),
                     TierHold(tier: .unknown, from: 1500, to: 1600), TierHold(tier: .bad, from: 1600, to: 1700)]
        let mos = [TimedMOS(ts: 100, mos: 4.4), TimedMOS(ts: 500, mos: 4.2), TimedMOS(ts: 1100, mos: 3.0)]
        p.split(.netType, by: t, holds: holds, warmMOS: mos, subscriptions: subs,
                disconnects: [Disconnect(ts: 1800, reason: "network", error: "timeout"), Disconnect(ts: 10, reason: "leave", error: nil)],
                cdn: false)
        #expect(p.pieces.count == 2)
        let wifi = p.pieces[0], cell = p.pieces[1]
        #expect(wifi.client.netType == "wifi" && cell.client.netType == "cellular")
        #expect(wifi.client.platform == "ios" && cell.uid == "a")
        #expect(wifi.watchedMs == 900 && cell.watchedMs == 1000 + 450)
        #expect(wifi.stalledMs == 100 && cell.stalledMs == 200)
        #expect(wifi.measuredMs == 900 && wifi.lowTierMs == 100)
        #expect(cell.measuredMs == 600 && cell.lowTierMs == 600)
        #expect(wifi.mosP50 == 4.2 && cell.mosP50 == 3.0)
        #expect(wifi.firstFrameMs == [100] && cell.firstFrameMs == [50])
        #expect(wifi.abnormalDisconnects == 0 && cell.abnormalDisconnects == 1)

        // Only one network with figures: no piece, that network.
        var q = CohortParticipant(uid: "a", engine: "sfu", client: .init(), watchedMs: 0, stalledMs: 0, lowTierMs: 0,
                                  measuredMs: 800, mosP50: nil, abnormalDisconnects: 0, firstFrameMs: [])
        q.split(.netType, by: t, holds: [TierHold(tier: .good, from: 1100, to: 1900)], warmMOS: [], subscriptions: [], disconnects: [], cdn: false)
        #expect(q.pieces.isEmpty && q.client.netType == "cellular")
    }

    /// A participant split by network is one participant to every other
    /// field and to the whole fleet, and one per network to `netType`.
    @Test func piecesCountOnlyTowardNetType() throws {
        var info = ParticipantContext.ClientInfo()
        info.platform = "ios"
        info.netType = "wifi"
        var split = CohortParticipant(uid: "a", engine: "sfu", client: info, watchedMs: 1000, stalledMs: 100, lowTierMs: 0,
                                      measuredMs: 1000, mosP50: 4, abnormalDisconnects: 0, firstFrameMs: [])
        var wifi = split, cell = split
        wifi.watchedMs = 400
        wifi.stalledMs = 0
        cell.watchedMs = 600
        cell.stalledMs = 100
        cell.client.netType = "cellular"
        wifi.pieceOf = .netType
        cell.pieceOf = .netType
        split.pieces = [wifi, cell]
        var other = split
        other.uid = "b"
        other.pieces = []
        let meetings = [CohortMeeting(meeting: "m", start: 0, participants: [split, other])]
        let byPlatform = CohortTable(meetings, by: .platform)
        #expect(byPlatform.cohorts.map(\.participants) == [2] && byPlatform.cohorts[0].watchedMs == 2000)
        let byNet = CohortTable(meetings, by: .netType)
        let cellular = try #require(byNet.cohorts.first { $0.value == "cellular" })
        let onWifi = try #require(byNet.cohorts.first { $0.value == "wifi" })
        #expect(cellular.participants == 1 && cellular.stalledMs == 100 && cellular.watchedMs == 600)
        #expect(onWifi.participants == 2 && onWifi.stalledMs == 100 && onWifi.watchedMs == 1400)
        let trend = TrendTable(meetings, every: .day)
        #expect(trend.rows.map(\.figures.participants) == [2])

        // The partials carry the scope, and read back to the same tables.
        let partials = try CohortPartials(meetings)
        #expect(partials.participants == 2)
        let text = partials.json.rendered()
        #expect(text.contains(#""scope":"whole","splitBy":["netType"]"#) && text.contains(#""scope":"piece","pieceOf":"netType""#))
        let back = try CohortPartials.parse(Data(text.utf8))
        #expect(CohortTable(back.meetings, by: .netType) == byNet)
        #expect(CohortTable(back.meetings, by: .platform) == byPlatform)
        // Version 2 named the same scopes "whole" and "network": still read,
        // to the same tables.
        let v2 = text.replacingOccurrences(of: #""mqaCohortPartials":3"#, with: #""mqaCohortPartials":2"#)
            .replacingOccurrences(of: #""scope":"whole","splitBy":["netType"]"#, with: #""scope":"whole""#)
            .replacingOccurrences(of: #""scope":"piece","pieceOf":"netType""#, with: #""scope":"network""#)
        let second = try CohortPartials.parse(Data(v2.utf8))
        #expect(CohortTable(second.meetings, by: .netType) == byNet && second.readVersion == 2)
        // A file of version 1 (no scope: every profile whole) is still read…
        let plain = try CohortPartials([CohortMeeting(meeting: "n", start: 0, participants: [other])]).json.rendered()
        let old = try CohortPartials.parse(Data(plain.replacingOccurrences(of: #""mqaCohortPartials":3"#,
                                                                           with: #""mqaCohortPartials":1"#).utf8))
        // …but not merged with another version: they count a changed
        // network, or a rejoin with another client, differently.
        #expect((try? CohortPartials.merge([old, old])) == nil, "a meeting twice")
        #expect(throws: CohortPartialsError.self) { try CohortPartials.merge([old, back]) }
        #expect(throws: CohortPartialsError.self) { try CohortPartials.merge([second, back]) }
        #expect((try? CohortPartials.merge([old]))?.meetings == old.meetings)
        // "all" may be said, in any version.
        let said = text.replacingOccurrences(of: #""engine":"sfu","participants""#, with: #""engine":"sfu","scope":"all","participants""#)
        #expect(said != text)
        #expect(try CohortPartials.parse(Data(said.utf8)) == back)
        // An unknown scope, a scope of another version, or a field that
        // never changes in a call is an error.
        for (from, to) in [(#""scope":"whole""#, #""scope":"half""#),
                           (#""scope":"piece","pieceOf":"netType""#, #""scope":"network""#),
                           (#""splitBy":["netType"]"#, #""splitBy":["engine"]"#),
                           (#""splitBy":["netType"]"#, #""splitBy":[]"#),
                           (#""pieceOf":"netType""#, #""pieceOf":"colour""#)] {
            let bad = text.replacingOccurrences(of: from, with: to)
            #expect(bad != text)
            #expect(throws: CohortPartialsError.self) { try CohortPartials.parse(Data(bad.utf8)) }
        }
    }

    /// From a log to the store's cohorts: Alice joins on Wi-Fi, moves to
    /// cellular at +60 s and freezes 10 s at +80 s. The freeze is on
    /// cellular; her Wi-Fi time stalled nothing; the store path equals the
    /// analysis of the log.
    @Test func aStallAfterAMoveToCellularIsOnCellular() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        func line(_ dt: Int64, _ uid: String, _ rest: String) -> String {
            #"{"ts":\#(t0 + dt),"meeting":"m-1","uid":"\#(uid)","# + rest + "}"
        }
        var alice = [
            line(0, "alice", #""event":"meeting_join","engine":"sfu","platform":"ios","netType":"wifi""#),
            line(1000, "alice", #""event":"stream_subscribe","publisher":"bob","track":"bob-cam","kind":"camera""#),
            line(2000, "alice", #""event":"receive_stream_status","publisher":"bob","track":"bob-cam","timedOut":false"#),
            line(60_000, "alice", #""event":"network_change","netType":"cellular","detail":"wifi→cellular""#),
            line(80_000, "alice", #""event":"receive_stream_status","publisher":"bob","track":"bob-cam","timedOut":true"#),
            line(90_000, "alice", #""event":"receive_stream_status","publisher":"bob","track":"bob-cam","timedOut":false"#),
        ]
        alice += (1...60).map { qr(t0 + Int64($0) * 2000, uid: "alice", mos: $0 > 30 ? "3.1" : "4.3") }
        var bob = [line(0, "bob", #""event":"meeting_join","engine":"sfu","platform":"ios","netType":"ethernet""#)]
        bob += (1...60).map { qr(t0 + Int64($0) * 2000, uid: "bob") }
        _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", alice), s.write("b.ndjson", bob)])
        try store.refreshSummaries()
        let stored = try store.cohortMeetings()
        let log = try #require(try store.meetingLog("m-1"))
        #expect(stored == [try CohortMeeting(log: log)])
        let a = try #require(stored.first?.participants.first { $0.uid == "alice" })
        #expect(a.pieces.map(\.client.netType) == ["wifi", "cellular"])
        #expect(a.pieces.map(\.stalledMs) == [0, 10_000] && a.stalledMs == 10_000)
        #expect(a.pieces[0].watchedMs == 58_000 && a.pieces[1].watchedMs == 60_000)
        #expect(a.pieces[0].mosP50 == 4.3 && a.pieces[1].mosP50 == 3.1)

        let byNet = CohortTable(stored, by: .netType)
        let cellular = try #require(byNet.cohorts.first { $0.value == "cellular" })
        let wifi = try #require(byNet.cohorts.first { $0.value == "wifi" })
        #expect(cellular.stalledMs == 10_000 && wifi.stalledMs == 0)
        #expect(cellular.participants == 1 && wifi.participants == 1)
        #expect(CohortTable(stored, by: .platform).cohorts.map(\.participants) == [2])

        // A damaged report chunk of hers: said once, and she stays whole
        // (her summaries hold her figures; the split cannot be made).
        let db = try Database(path: s.db)
        let row = try db.prepare(
            "SELECT r.id, r.data FROM report_chunks r JOIN clients c ON c.id = r.client_id WHERE c.uid = 'alice' LIMIT 1")
        #expect(try row.step())
        let id = row.int64(0)
        var blob = row.blob(1)
        blob[blob.count - 3] ^= 0x5A
        let write = try db.prepare("UPDATE report_chunks SET data = ? WHERE id = ?")
        write.bind(1, blob: blob)
        write.bind(2, id)
        try write.run()
        var damage: [StoreDamage] = []
        let again = try EventStore(path: s.db).cohortMeetings { damage.append($0) }
        #expect(damage.count == 1 && damage.first?.uid == "alice", "\(damage)")
        let whole = try #require(again.first?.participants.first { $0.uid == "alice" })
        #expect(whole.pieces.isEmpty && whole.stalledMs == 10_000)
    }

    /// `tune --by netType` counts a client whose network changed on each
    /// network, inside its stretches: every stall, alarm and flap of the
    /// fleet is in exactly one cohort (tier time too, but for a tail after
    /// a client's last report that runs into a network without reports).
    @Test func tuneByNetTypeCountsEachNetworksPart() throws {
        // A connection of its own: the fixture's store is not to be shared
        // between tests running at once.
        let (_, dir, cohorts) = CohortFleet.fixture
        let store = try EventStore(path: dir.db)
        let logs = try cohorts.map { try #require(try store.meetingLog($0.meeting)) }
        let t = CohortTuning(logs, by: .netType, configs: [TierConfig()], options: TuningOptions())
        let fleet = try #require(t.fleet.first).score
        let parts = t.cohorts.map(\.fleetBest.score)
        #expect(parts.reduce(0) { $0 + $1.stalls } == fleet.stalls)
        #expect(parts.reduce(0) { $0 + $1.covered } == fleet.covered)
        #expect(parts.reduce(0) { $0 + $1.alarms } == fleet.alarms)
        // An alarm just before a change, whose stall came on the next
        // network, is not useful on its own network (that stall is not in
        // its cohort): one of 774 here.
        let useful = parts.reduce(0) { $0 + $1.useful }
        #expect(useful <= fleet.useful && useful >= fleet.useful - 3)
        #expect(parts.reduce(0) { $0 + $1.flaps } == fleet.flaps)
        let warm = parts.reduce(Int64(0)) { $0 + $1.warmMs }
        #expect(warm <= fleet.warmMs && warm > fleet.warmMs * 999 / 1000)
        let split = cohorts.flatMap(\.participants).filter { !$0.pieces.isEmpty }.count
        #expect(split > 0 && t.cohorts.reduce(0) { $0 + $1.clients } > logs.reduce(0) { $0 + $1.clients.count })
        // By any other field a client is in one cohort, whole.
        let byPlatform = CohortTuning(logs, by: .platform, configs: [TierConfig()], options: TuningOptions())
        #expect(byPlatform.cohorts.reduce(0) { $0 + $1.clients } == logs.reduce(0) { $0 + $1.clients.count })
        #expect(byPlatform.cohorts.reduce(0) { $0 + $1.fleetBest.score.warmMs } == fleet.warmMs)
    }
}

import Foundation
import MQASimulator
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// The named queries restate two rules in SQL (the fleet score and the
/// low-MOS threshold), so that each file runs as it is in the sqlite3 shell.
/// These tests hold the SQL to the Swift definitions on a simulated fleet.
@Suite(.serialized) struct NamedQueryAgreementTests {
    /// A simulated fleet, ingested once into a scratch store (the suite is
    /// serialized: one test at a time reads it).
    nonisolated(unsafe) static let store: EventStore = {
        let s = Scratch()
        let logs = URL(fileURLWithPath: s.dir).appendingPathComponent("logs")
        _ = try! Simulator(seed: 5, meetings: 6).writeFiles(to: logs)
        let files = try! FileManager.default.subpathsOfDirectory(atPath: logs.path)
            .filter { $0.hasSuffix(".ndjson") || $0.hasSuffix(".ndjson.zst") }.sorted().map { logs.path + "/" + $0 }
        // Simulated participants rarely average below 3.5: one who does
        // (a loss of two decimals, which a rounded percentile would change).
        let join = #"{"ts":\#(t0),"event":"meeting_join","meeting":"m-low","uid":"alice","engine":"sfu"}"#
        let low = s.write("low.ndjson", [join] + (1...20).map { qr(t0 + Int64($0) * 2000, meeting: "m-low", loss: "12.25", mos: "2.9") })
        let store = try! EventStore(path: s.db)
        _ = try! Ingester(store: store).ingest(paths: files + [low])
        try! store.refreshSummaries()
        return store
    }()

    static func column(_ r: QueryResult, _ name: String, _ row: [SQLValue]) -> SQLValue {
        row[r.columns.firstIndex(of: name)!]
    }

    @Test func worstMeetingsScoreIsFleetScore() throws {
        let store = NamedQueryAgreementTests.store
        let result = try store.runQuery("worst-meetings")
        #expect(result.rows.count == 7)
        var previous = Double.infinity
        for row in result.rows {
            guard case .text(let meeting) = Self.column(result, "meeting", row),
                  case .double(let sqlScore) = Self.column(result, "score", row) else {
                Issue.record("unexpected row \(row)")
                continue
            }
            let log = try #require(try store.meetingLog(meeting))
            let swift = FleetScore(MeetingAnalysis.analyze(log, config: TierConfig())).seconds
            #expect(sqlScore == (swift * 10).rounded() / 10, "\(meeting): SQL \(sqlScore), Swift \(swift)")
            #expect(sqlScore <= previous)
            previous = sqlScore
        }
        // Not every meeting scores 0: the check compares real figures.
        #expect(result.rows.contains { if case .double(let s) = Self.column(result, "score", $0) { s > 0 } else { false } })
        // At most 50 unless told (it stopped at 50 with no word of it).
        #expect(try store.parameters(ofQuery: "worst-meetings") == ["since", "until", "limit"])
        #expect(try store.runQuery("worst-meetings", parameters: ["limit": .int(3)]).rows.count == 3)
        #expect(try store.runQuery("worst-meetings", parameters: ["limit": .int(-1)]).rows.count == 7)
    }

    @Test func lowMOSParticipantsAreTheLowMOSIssues() throws {
        let store = NamedQueryAgreementTests.store
        let result = try store.runQuery("low-mos-participants")
        let fromSQL = Set(result.rows.map { row -> String in
            guard case .text(let m) = Self.column(result, "meeting", row), case .text(let u) = Self.column(result, "uid", row) else { return "?" }
            return m + "/" + u
        })
        var fromSwift: Set<String> = []
        for meeting in try store.meetings() {
            let analysis = MeetingAnalysis.analyze(try #require(try store.meetingLog(meeting)), config: TierConfig())
            for issue in analysis.issues where issue.code == .lowMOS { fromSwift.insert(meeting + "/" + issue.uid!) }
        }
        #expect(!fromSwift.isEmpty, "the fleet should have low-MOS participants to compare")
        #expect(fromSQL == fromSwift)
    }

    /// `subscribers_with_stalls` counts people: a subscriber who stalled
    /// on a track in several subscriptions (resubscribing after a drop) is
    /// one (it summed rows: 29 on a track of a meeting of 11 people).
    @Test func stallsByTrackCountsDistinctSubscribers() throws {
        let store = NamedQueryAgreementTests.store
        let result = try store.runQuery("stalls-by-track", parameters: ["limit": .int(-1)])
        try #require(!result.rows.isEmpty)
        var logs: [String: MeetingAnalysis] = [:]
        var severalSubscriptions = 0
        for row in result.rows {
            guard case .text(let meeting) = Self.column(result, "meeting", row),
                  case .text(let publisher) = Self.column(result, "publisher", row),
                  case .text(let track) = Self.column(result, "track", row),
                  case .int(let sql) = Self.column(result, "subscribers_with_stalls", row),
                  case .int(let rows) = Self.column(result, "subscriptions", row) else {
                Issue.record("unexpected row \(row)")
                continue
            }
            if logs[meeting] == nil {
                logs[meeting] = MeetingAnalysis.analyze(try #require(try store.meetingLog(meeting)), config: TierConfig())
            }
            let subs = logs[meeting]!.subscriptions.filter { $0.publisher == publisher && $0.track == track }
            let stalled = Set(subs.filter { $0.stallCount > 0 }.map(\.subscriber))
            #expect(Int(sql) == stalled.count, "\(meeting) \(track)")
            if Int(rows) > Set(subs.map(\.subscriber)).count { severalSubscriptions += 1 }
        }
        // The fleet has resubscriptions, so summing rows would differ.
        #expect(severalSubscriptions > 0)
    }

    /// The query's percentiles are the report's: one report's value, exact.
    @Test func lowMOSParticipantsPercentilesAreExact() throws {
        let store = NamedQueryAgreementTests.store
        let result = try store.runQuery("low-mos-participants")
        try #require(!result.rows.isEmpty)
        for row in result.rows {
            guard case .text(let meeting) = Self.column(result, "meeting", row),
                  case .text(let uid) = Self.column(result, "uid", row) else { continue }
            let analysis = MeetingAnalysis.analyze(try #require(try store.meetingLog(meeting)), config: TierConfig())
            let p = try #require(analysis.participants.first { $0.uid == uid })
            func number(_ name: String) -> Double? {
                switch Self.column(result, name, row) {
                case .double(let d): d
                case .int(let i): Double(i)
                default: nil
                }
            }
            #expect(number("loss_pct_p95") == p.lossPct?.p95, "\(meeting)/\(uid)")
            #expect(number("rtt_ms_p95") == p.rttMs?.p95, "\(meeting)/\(uid)")
            #expect(number("jitter_ms_p95") == p.jitterMs?.p95, "\(meeting)/\(uid)")
        }
    }

    @Test func timeWindowParametersAreOptional() throws {
        let store = NamedQueryAgreementTests.store
        #expect(try store.parameters(ofQuery: "meetings") == ["since", "until"])
        let all = try store.runQuery("meetings")
        try #require(all.rows.count == 7)
        let starts = all.rows.compactMap { row -> Int64? in
            if case .int(let ms) = Self.column(all, "start", row) { ms } else { nil }
        }.sorted()
        let later = try store.runQuery("meetings", parameters: ["since": .int(starts[3])])
        #expect(later.rows.count == 4)
        let earlier = try store.runQuery("meetings", parameters: ["until": .int(starts[3])])
        #expect(earlier.rows.count == 3)
        #expect(throws: StoreError.self) { try store.runQuery("rejects", parameters: ["since": .int(0)]) }
        #expect(throws: StoreError.self) { try store.runQuery("no-such-query") }
    }
}

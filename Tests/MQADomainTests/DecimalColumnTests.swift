import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAStore
@testable import MQAIngest

/// A stored column's numbers become doubles in one pass
/// (`DecimalNumber.appendDoubles`), which must give each value's own
/// `doubleValue`, bit for bit, whatever the column starts with.
@Suite struct DecimalColumnTests {
    static func bits(_ values: [Double]) -> [UInt64] { values.map(\.bitPattern) }

    @Test func aColumnGivesEachValuesOwnDouble() {
        var rng = SplitMix64(seed: 11)
        for round in 0..<500 {
            var values: [DecimalNumber] = []
            for _ in 0..<Int(rng.next() % 40) {
                switch rng.next() % 10 {
                case 0: values.append(.null)
                case 1: values.append(DecimalNumber(binary: Double(rng.next() % 100_000) / 7))
                case 2: values.append(DecimalNumber(mantissa: Int64(rng.next() % (1 << 60)), exponent: -3))
                default:
                    // Runs of one exponent, as a stored column has, and
                    // positive exponents (20 is 2e1 once normalized).
                    let m = Int64(rng.next() % 10_000) - 5_000
                    values.append(DecimalNumber(mantissa: m, exponent: Int16(Int(rng.next() % 7) - 4)).normalized)
                }
            }
            var column: [Double] = round % 2 == 0 ? [] : [42]
            let before = column
            DecimalNumber.appendDoubles(of: values, to: &column, null: .nan)
            let expected = before + values.map { $0.doubleValue ?? .nan }
            #expect(Self.bits(column) == Self.bits(expected), "\(values)")
        }
    }

    @Test func reportsOfExponentOneAreStoredAsLogged() throws {
        let s = Scratch()
        let join = #"{"ts":\#(t0),"event":"meeting_join","meeting":"m-1","uid":"alice","engine":"sfu"}"#
        let reports = (1...10).map { i in
            #"{"ts":\#(t0 + Int64(i) * 2000),"event":"quality_report","meeting":"m-1","uid":"alice","loss":20,"rtt":300,"jitter":40,"bitrate":1200,"mos":2.5}"#
        }
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", [join] + reports)])
        try store.refreshSummaries()
        let log = try #require(try store.meetingLog("m-1"))
        let columns = try #require(log.clients.first).reports
        #expect(columns.loss == Array(repeating: 20, count: 10))
        #expect(columns.rtt == Array(repeating: 300, count: 10))
        #expect(columns.jitter == Array(repeating: 40, count: 10))
        #expect(columns.bitrate == Array(repeating: 1200, count: 10))
        // The summaries stored at ingest agree with a recomputation.
        #expect(try store.check().isClean)
    }
}

/// Summaries computed by older rules (`summaryRevision`) are redone by the
/// first mqa that may write the store, as stale ones are; `check` counts
/// neither as damage.
@Suite struct SummaryRevisionTests {
    static func lossP95(_ store: EventStore) throws -> Double? {
        let s = try store.db.prepare("SELECT loss_p95 FROM participant_summary")
        return try s.step() ? s.double(0) : nil
    }

    @Test func summariesOfOlderRulesAreRedone() throws {
        let s = Scratch()
        let join = #"{"ts":\#(t0),"event":"meeting_join","meeting":"m-1","uid":"alice","engine":"sfu"}"#
        let reports = (1...10).map { qr(t0 + Int64($0) * 2000, loss: "20") }
        do {
            let store = try EventStore(path: s.db)
            _ = try Ingester(store: store).ingest(paths: [s.write("a.ndjson", [join] + reports)])
            try store.refreshSummaries()
            #expect(try store.summaryRevision() == EventStore.summaryRevision)
            #expect(try Self.lossP95(store) == 20)
            // As an older mqa left it: no revision, and a row of its rules.
            try store.db.execute("DROP TABLE summary_revision; UPDATE participant_summary SET loss_p95 = 2")
        }
        let old = try EventStore.openExisting(path: s.db)
        #expect(try old.summaryRevision() == 1)
        #expect(try old.check().isClean, "older rules are not damage")
        // A reading command's refresh redoes them.
        try EventStore.refreshStaleSummaries(path: s.db)
        let store = try EventStore.openExisting(path: s.db)
        #expect(try store.summaryRevision() == EventStore.summaryRevision)
        #expect(try Self.lossP95(store) == 20)
        #expect(try store.check().isClean)
        // Opening it again marks nothing.
        _ = try EventStore(path: s.db)
        #expect(try SummaryWorkersTests.staleCount(try EventStore.openExisting(path: s.db)) == 0)
    }
}

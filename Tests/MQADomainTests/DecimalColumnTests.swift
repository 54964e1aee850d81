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

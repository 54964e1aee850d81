import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// The writer marks a meeting stale once per write transaction (one stamp
/// for the transaction, the meetings it marked remembered): a summary
/// computed from an earlier commit must still never be stored in a
/// transaction that gave the meeting data, whatever inputs came between.
@Suite struct IngestStaleMarkTests {
    static func stale(_ store: EventStore, _ meeting: String) throws -> Int64 {
        let s = try store.db.prepare("SELECT stale FROM meetings WHERE meeting = ?")
        s.bind(1, meeting)
        return try s.firstInt64() ?? -1
    }

    /// A zstd frame of `lines` cut short: the input fails after its first
    /// lines were read, and is undone alone.
    static func broken(_ s: Scratch, _ name: String, _ lines: [String]) throws -> String {
        let text = Array((lines.joined(separator: "\n") + "\n").utf8)
        var frame: [UInt8] = []
        try text.withUnsafeBytes { try ZstdCompressor(level: 3).compress($0, appendingTo: &frame) }
        frame.removeLast(16)
        let path = s.dir + "/" + name
        try Data(frame).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The summary is offered (from `onReject`, inside the open shared
    /// transaction) after an input gave its meeting data, after an input
    /// that failed and was undone, and after one that touched the meeting
    /// again, when the writer no longer writes the mark.
    @Test("a summary from an earlier commit is refused in a transaction that gave its meeting data",
          arguments: [false, true])
    func olderSummaryRefusedWithinTheTransaction(withFailure: Bool) throws {
        let s = Scratch()
        let a = s.write("a.ndjson", (0..<10).map { qr(t0 + Int64($0) * 2000) })
        let b = s.write("b.ndjson", (10..<20).map { qr(t0 + Int64($0) * 2000, mos: "2.1") })
        var paths = [a, b]
        if withFailure {
            paths.append(try Self.broken(s, "c.ndjson.zst", (20..<30).map { qr(t0 + Int64($0) * 2000, mos: "1.5") }))
        }
        paths.append(s.write("d.ndjson", ["{bad"] + (30..<40).map { qr(t0 + Int64($0) * 2000, mos: "3.3") }))
        paths.append(s.write("e.ndjson", ["{bad"] + (0..<5).map { qr(t0 + Int64($0) * 2000, uid: "bob", meeting: "m-2") }))
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store, nowMs: t0 + 86_400_000)
        ingester.summarizeWhileReading = false
        _ = try ingester.ingest(path: a)
        let reader = try EventStore.openExisting(path: s.db)
        let old = try reader.computeSummary(meetingID: 1, config: TierConfig())
        #expect(old.rows != nil)
        var stored: [Bool] = []
        ingester.onReject = { _ in stored.append((try? store.storeSummary(old)) ?? true) }
        var failures = 0
        ingester.onInputError = { _ in failures += 1 }
        _ = try ingester.ingest(paths: Array(paths.dropFirst()))
        #expect(failures == (withFailure ? 1 : 0))
        #expect(stored == [false, false], "\(stored)")
        #expect(try Self.stale(store, "m-1") > 1)
        #expect(try store.check().damage.isEmpty)
    }
}

import Foundation
import Testing
import MQATestSupport
@testable import MQABase
@testable import MQAStore
@testable import MQAIngest

/// Rejected lines past an input's raw budget: every line keeps its number,
/// reason and size, and the lines of one reason and size share one text row
/// (2 million distinct bad lines made a row each: 38 s and 323 MB).
@Suite struct RejectTextTests {
    /// 300 bad lines, distinct by `ts`, of two lengths, with a budget of
    /// 1,000 bytes of raw text; then the same lines again under another
    /// name with one changed, so the content is new.
    @Test func pastTheBudgetLinesShareTheirReasonAndSizeRow() throws {
        let s = Scratch()
        let lines = (0..<300).map { i in qr(t0 + Int64(i) * 1000, loss: i % 2 == 0 ? "205" : "2050") }
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        ingester.rawBudgetPerInput = 1000
        let summary = try ingester.ingest(paths: [s.write("a.ndjson", lines)])
        #expect(summary.rejected == 300)
        let rows = try Self.rejects(store)
        #expect(rows.map(\.line) == Array(1...300))
        #expect(rows.allSatisfy { $0.reason.hasPrefix("loss: \($0.line % 2 == 1 ? "205" : "2050") is outside 0–100") })
        #expect(rows.allSatisfy { $0.size == lines[$0.line - 1].utf8.count })
        // Raw kept while the budget lasts, each line its own text.
        let kept = rows.prefix { $0.raw != nil }
        #expect(kept.count == 1000 / lines[0].utf8.count)
        #expect(kept.allSatisfy { $0.raw == Array(lines[$0.line - 1].utf8) })
        #expect(Set(kept.map(\.text)).count == kept.count)
        // Then none, and one row per reason and size.
        #expect(rows.dropFirst(kept.count).allSatisfy { $0.raw == nil })
        #expect(Set(rows.dropFirst(kept.count).map(\.text)).count == 2)
        // Another input shares those rows past its own budget.
        let again = try ingester.ingest(paths: [s.write("b.ndjson", lines.dropLast() + [qr(t0, loss: "-1")])])
        #expect(again.rejected == 300)
        let all = try Self.rejects(store)
        #expect(Set(all.filter { $0.raw == nil }.map(\.text)).count == 3, "two shared rows and the new line's")
    }

    /// The rows past the budget are remembered by reason and size, and
    /// forgotten when an input is undone: a damaged `.zst` whose first
    /// batches of bad lines were written, then the same lines plain, in
    /// one ingest. The second input must not name the undone rows.
    @Test func anUndoneInputsRowsAreNotNamedAfter() throws {
        let s = Scratch()
        let lines = (0..<30_000).map { i in qr(t0 + Int64(i) * 1000, loss: "205") }
        let text = Array((lines.joined(separator: "\n") + "\n").utf8)
        var zst: [UInt8] = []
        try text.withUnsafeBytes { try ZstdCompressor(level: 1).compress($0, appendingTo: &zst) }
        let damaged = s.write("a.ndjson.zst", bytes: Array(zst.dropLast(64)))
        let plain = s.write("b.ndjson", lines + [qr(t0, loss: "-1")])
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        ingester.rawBudgetPerInput = 1000
        var failures: [String] = []
        ingester.onInputError = { failures.append("\($0)") }
        let summary = try ingester.ingest(paths: [damaged, plain])
        #expect(failures.count == 1, "\(failures)")
        #expect(summary.rejected == 30_001)
        let rows = try Self.rejects(store)
        #expect(rows.count == 30_001 && rows.allSatisfy { $0.reason.hasPrefix("loss: ") })
        let check = try store.db.prepare("PRAGMA foreign_key_check")
        #expect(try !check.step())
    }

    static func rejects(_ store: EventStore) throws -> [(line: Int, reason: String, size: Int, raw: [UInt8]?, text: Int)] {
        let select = try store.db.prepare("""
            SELECT r.line, t.reason, t.size, t.raw, t.id FROM rejects r JOIN reject_texts t ON t.id = r.text_id
            ORDER BY r.file_id, r.line
            """)
        var out: [(line: Int, reason: String, size: Int, raw: [UInt8]?, text: Int)] = []
        while try select.step() {
            let raw: [UInt8]? = if case .blob(let b) = select.value(3) { b } else { nil }
            out.append((select.int(0), select.string(1) ?? "", select.int(2), raw, select.int(4)))
        }
        return out
    }
}

import Foundation
import MQASimulator
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// `mqa check` reads chunks and meetings on its thread while the batch
/// before is verified on the others: what it finds, and in what order,
/// is the same whatever the batches.
@Suite struct StoreCheckBatchesTests {
    static func store(_ s: Scratch) throws -> EventStore {
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: try SummaryWorkersTests.fleetFiles(s, meetings: 6))
        _ = try store.refreshSummaries()
        return store
    }

    @Test func chunkDamageIsFoundInOrderWhateverTheBatches() throws {
        let s = Scratch()
        let store = try Self.store(s)
        #expect(try store.check().damage.isEmpty)
        // A zeroed report chunk, a truncated event chunk, a row whose
        // count lies, and two chunks of one client that overlap.
        try store.db.execute("UPDATE report_chunks SET data = zeroblob(length(data)) WHERE id = (SELECT min(id) FROM report_chunks)")
        try store.db.execute("UPDATE event_chunks SET data = x'00112233' WHERE id = (SELECT max(id) FROM event_chunks)")
        try store.db.execute("UPDATE report_chunks SET count = count + 1 WHERE id = (SELECT max(id) FROM report_chunks)")
        // Chunk 4 handed to chunk 3's client, a participant of the same
        // call: their times overlap.
        try store.db.execute("UPDATE report_chunks SET client_id = (SELECT client_id FROM report_chunks WHERE id = 3) WHERE id = 4")
        func found(_ batchBytes: Int) throws -> (String, [StoreDamage]) {
            var r = StoreCheckResult()
            for table in ChunkTable.allCases { try store.checkChunks(table, into: &r, batchBytes: batchBytes) }
            return ("\(r.reportChunks) \(r.eventChunks) \(r.reports) \(r.events)", r.damage)
        }
        let whole = try found(Int.max)
        #expect(whole.1.count >= 3, "\(whole.1)")
        #expect(whole.1.contains { $0.reason.hasPrefix("row says") && $0.reason.contains("items") })
        #expect(whole.1.contains { $0.reason.hasPrefix("overlaps chunk") }, "\(whole.1)")
        for bytes in [1, 700, 20_000] {
            let batched = try found(bytes)
            #expect(batched.0 == whole.0, "batches of \(bytes) bytes")
            #expect(batched.1 == whole.1, "batches of \(bytes) bytes")
        }
        // And what `check` itself says, the SQLite checks first.
        #expect(Array(try store.check().damage.suffix(whole.1.count)) == whole.1)
    }

    /// A page of the chunk table that cannot be read stops the walk
    /// there; the chunks read before it are still checked and counted,
    /// however many were waiting in a batch.
    @Test func chunksReadBeforeADamagedPageAreStillChecked() throws {
        let s = Scratch()
        var pageSize: Int64 = 0, page: Int64 = 0
        do {
            let store = try Self.store(s)
            try store.db.execute("UPDATE report_chunks SET data = zeroblob(length(data)) WHERE id = (SELECT min(id) FROM report_chunks)")
            try store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            pageSize = try store.db.prepare("PRAGMA page_size").firstInt64() ?? 0
            page = try store.db.prepare(
                "SELECT max(pageno) FROM dbstat WHERE name = 'report_chunks' AND pagetype = 'leaf'").firstInt64() ?? 0
        }
        #expect(pageSize > 0 && page > 1)
        // The last leaf's cell pointers, overwritten.
        let file = try #require(FileHandle(forUpdatingAtPath: s.db))
        try file.seek(toOffset: UInt64((page - 1) * pageSize + 8))
        file.write(Data(repeating: 0xFF, count: 8))
        try file.close()
        let store = try EventStore(path: s.db)
        for bytes in [1, Int.max] {
            var r = StoreCheckResult()
            #expect(throws: (any Error).self) {
                for table in ChunkTable.allCases { try store.checkChunks(table, into: &r, batchBytes: bytes) }
            }
            #expect(r.reportChunks > 0, "batches of \(bytes) bytes")
            #expect(r.damage.contains { $0.reason.hasPrefix("chunk encoding 0") }, "batches of \(bytes) bytes: \(r.damage)")
        }
        let reasons = try store.check().damage.map(\.reason)
        #expect(reasons.contains { $0.hasPrefix("chunk encoding 0") } && reasons.contains { $0.hasPrefix("cannot read the chunks") }, "\(reasons)")
    }

    @Test func summaryDamageIsFoundInOrderWhateverTheGroups() throws {
        let s = Scratch()
        let store = try Self.store(s)
        try store.db.execute("UPDATE participant_summary SET flaps = flaps + 7 WHERE rowid IN (SELECT min(rowid) FROM participant_summary GROUP BY meeting_id)")
        try store.db.execute("DELETE FROM track_summary WHERE rowid = (SELECT max(rowid) FROM track_summary)")
        func found(_ groupItems: Int) throws -> [StoreDamage] {
            var r = StoreCheckResult()
            try store.checkSummaries(into: &r, groupItems: groupItems)
            return r.damage
        }
        let whole = try found(Int.max)
        #expect(whole.count == 7, "\(whole)")
        let sizes = try store.storedItemCounts().values.sorted()
        for limit in [0, sizes[0], sizes[sizes.count / 2]] { #expect(try found(limit) == whole, "groups of \(limit) items") }
        #expect(try store.check().damage == whole)
    }
}

import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Stores written before the chunk encodings changed keep working: a store
/// made by the mqa of schema 2 (report chunks `seriesVarint`, event chunks
/// `eventsJSON`; Fixtures/v2-store.sqlite, from 1 simulated meeting plus a
/// client with every kind, escapes and odd decimals) reads, checks and
/// exports exactly as that mqa exported it (Fixtures/v2-export.ndjson.zst).
@Suite struct OldChunkEncodingTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func expectedExport() throws -> String {
        let compressed = try Data(contentsOf: fixtures.appendingPathComponent("v2-export.ndjson.zst"))
        let bytes = try [UInt8](compressed).withUnsafeBytes { try ZstdDecompressor().decompress($0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    func encodings(_ store: EventStore, _ table: String) throws -> Set<UInt8> {
        let s = try store.db.prepare("SELECT DISTINCT substr(data, 1, 1) FROM \(table)")
        var out: Set<UInt8> = []
        while try s.step() { out.formUnion(s.withBlob(0) { Array($0) }) }
        return out
    }

    @Test func aStoreOfTheOldEncodingsReadsAndExportsUnchanged() throws {
        let s = Scratch()
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("v2-store.sqlite").path, toPath: s.db)
        let old = try EventStore.openExisting(path: s.db)
        #expect(try encodings(old, "report_chunks") == [ChunkEncoding.seriesVarint.rawValue])
        #expect(try encodings(old, "event_chunks") == [ChunkEncoding.eventsJSON.rawValue])
        let expected = try Self.expectedExport()
        #expect(expected.hasPrefix("{\"ts\":"))
        #expect(try exportText(old) == expected)
        let check = try old.check()
        #expect(check.isClean && check.integrity == ["ok"])
        #expect(check.events + check.reports == expected.split(separator: "\n").count)

        // Ingesting its export anew writes the new encodings, and the same text.
        let s2 = Scratch()
        let fresh = try EventStore(path: s2.db)
        let summary = try Ingester(store: fresh).ingest(paths: [s2.write("old.ndjson", expected.split(separator: "\n").map(String.init))])
        #expect(summary.rejected == 0 && summary.duplicates == 0)
        #expect(try encodings(fresh, "report_chunks") == [ChunkEncoding.seriesBucketed.rawValue])
        #expect(try encodings(fresh, "event_chunks") == [ChunkEncoding.eventsColumnar.rawValue])
        #expect(try exportText(fresh) == expected)
        // New stores get small pages (chunks spill into full overflow pages);
        // an old store keeps its own.
        #expect(try pageSize(fresh) == EventStore.pageSize)
        #expect(try pageSize(old) == 4096)
    }

    func pageSize(_ store: EventStore) throws -> Int {
        let s = try store.db.prepare("PRAGMA page_size")
        return try s.step() ? s.int(0) : 0
    }

    /// New data merged into a client's old chunks rewrites them in the new
    /// encoding, with nothing lost or doubled.
    @Test func mergingIntoOldChunksRewritesThem() throws {
        let s = Scratch()
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("v2-store.sqlite").path, toPath: s.db)
        let store = try EventStore(path: s.db)
        let expected = try Self.expectedExport()
        // The whole export again: every line a duplicate of a stored one.
        let lines = expected.split(separator: "\n").map(String.init)
        let summary = try Ingester(store: store).ingest(paths: [s.write("again.ndjson", lines)])
        #expect(summary.duplicates == lines.count)
        #expect(try exportText(store) == expected)
        #expect(try encodings(store, "report_chunks") == [ChunkEncoding.seriesBucketed.rawValue])
        #expect(try encodings(store, "event_chunks") == [ChunkEncoding.eventsColumnar.rawValue])
    }
}

import Foundation
import Testing
@testable import MQABase
@testable import MQAStore
@testable import MQAIngest

/// Events of large payloads are chunked by payload bytes as well as by
/// count (`EventStore.chunkPayloadBytes`), the same however their log
/// arrives, so that no chunk needs more memory than a few MB to encode or
/// read.
@Suite struct IngestLargePayloadTests {
    /// A report a second and, every third second, a title change of 150 to
    /// 900 KB: about 26 MB for 150 seconds.
    static func lines(_ uid: String, seconds: Int) -> [String] {
        var out: [String] = []
        for i in 0..<seconds {
            let ts = t0 + Int64(i) * 1000 + (uid == "bob" ? 500 : 0)
            out.append(qr(ts, uid: uid))
            if i % 3 == 0 {
                let letter = Character(UnicodeScalar(UInt8(97 + i % 26)))
                let title = "\(i)" + String(repeating: letter, count: 150_000 + (i * 37_003) % 750_000)
                out.append(#"{"ts":\#(ts),"event":"room_title_change","meeting":"m-1","uid":"\#(uid)","title":"\#(title)","previousTitle":"x"}"#)
            }
        }
        return out
    }

    /// Each client's event chunks, in order, decoded.
    static func eventChunks(_ db: String) throws -> [String: [EventSeries]] {
        let store = try EventStore(path: db)
        let rows = try store.db.prepare(
            "SELECT t.id, c.uid, t.count, t.data FROM event_chunks t JOIN clients c ON c.id = t.client_id ORDER BY c.uid, t.first_ts, t.id")
        var out: [String: [EventSeries]] = [:]
        while try rows.step() {
            let id = rows.int64(0)
            let events = try rows.withBlob(3) { try store.decodeEvents(row: id, blob: $0) }
            #expect(events.count == rows.int(2))
            out[rows.string(1) ?? "", default: []].append(events)
        }
        return out
    }

    /// Every chunk holds at most `chunkPayloadBytes` of payload, or one event.
    static func expectBounded(_ chunks: [String: [EventSeries]]) {
        for (uid, list) in chunks {
            for chunk in list {
                #expect(chunk.count == 1 || chunk.payloadByteCount <= EventStore.chunkPayloadBytes, "\(uid): \(chunk.count) events, \(chunk.payloadByteCount) bytes")
            }
        }
    }

    @Test("a log of large payloads in pieces, another client between them and a piece sent twice: the chunks of the whole file")
    func piecesAreChunkedAsTheWholeFile() throws {
        // The last piece is more than the writer keeps of a tail
        // (`TailItems.byteLimit`): it is read back chunk by chunk.
        let (whole, cut, summary) = try IngestTailTests.wholeAndPieces(
            alice: Self.lines("alice", seconds: 150), bob: Self.lines("bob", seconds: 30),
            sizes: [1, 7, 30, 2, 130], bobSplit: 20, bobAfter: 1, again: 10..<16, againAfter: 2)
        #expect(summary.duplicates == 6)

        let chunks = try Self.eventChunks(whole.db)
        Self.expectBounded(chunks)
        // More than a chunk's bytes in all, so cut by bytes: the first
        // chunks hold few events, not 2,048.
        #expect((chunks["alice"]?.count ?? 0) >= 6)
        // As `chunkRanges` cuts the client's events from the first on.
        for (uid, list) in chunks {
            var all = EventSeries()
            for chunk in list { all.append(chunk, range: 0..<chunk.count) }
            #expect(all.chunkRanges().map(\.count) == list.map(\.count), "\(uid)")
        }
        #expect(try IngestTailTests.chunks(cut.db) == IngestTailTests.chunks(whole.db))
        #expect(try exportText(try EventStore(path: cut.db)) == exportText(try EventStore(path: whole.db)))
    }

    @Test("pieces of large payloads out of order are merged, and their chunks stay bounded")
    func reorderedPiecesStayBounded() throws {
        let alice = Self.lines("alice", seconds: 90)
        let whole = Scratch()
        _ = try Ingester(store: try EventStore(path: whole.db)).ingest(paths: [whole.write("alice.ndjson", alice)])
        let cut = Scratch()
        let n = alice.count
        let paths = [
            cut.write("late.ndjson", Array(alice[(n / 2)...])),
            cut.write("early.ndjson", Array(alice[0..<(n / 3)])),
            cut.write("middle.ndjson", Array(alice[(n / 4)..<(n / 2 + 5)])),
        ]
        _ = try Ingester(store: try EventStore(path: cut.db)).ingest(paths: paths)
        Self.expectBounded(try Self.eventChunks(cut.db))
        #expect(try exportText(try EventStore(path: cut.db)) == exportText(try EventStore(path: whole.db)))
    }
}

extension IngestLargePayloadTests {
    static func title(_ ts: Int64, _ name: String) -> String {
        #"{"ts":\#(ts),"event":"room_title_change","meeting":"m-1","uid":"alice","title":"\#(name)\#(String(repeating: "x", count: 1_000_000))","previousTitle":"x"}"#
    }

    @Test("events of one millisecond cut into two chunks, then a later piece: merged after the last of them, not the first")
    func trailingChunkIsTheLastOfItsMillisecond() throws {
        // Five 1 MB titles in one millisecond: two chunks ending there.
        let first = [#"{"ts":\#(t0),"event":"meeting_join","meeting":"m-1","uid":"alice","engine":"sfu"}"#]
            + (0..<5).map { Self.title(t0 + 1000, "a\($0)") }
        let second = [#"{"ts":\#(t0 + 2000),"event":"user_enter","meeting":"m-1","uid":"alice","target":"bob"}"#]
            + (0..<10).map { Self.title(t0 + 3000 + Int64($0), "b\($0)") }
        let whole = Scratch()
        _ = try Ingester(store: try EventStore(path: whole.db)).ingest(paths: [whole.write("all.ndjson", first + second)])
        let cut = Scratch()
        let a = cut.write("a.ndjson", first), b = cut.write("b.ndjson", second)
        _ = try Ingester(store: try EventStore(path: cut.db)).ingest(path: a)
        _ = try Ingester(store: try EventStore(path: cut.db)).ingest(path: b)
        #expect(try EventStore(path: cut.db).check().isClean)
        #expect(try exportText(try EventStore(path: cut.db)) == exportText(try EventStore(path: whole.db)))
        #expect(try IngestTailTests.chunks(cut.db) == IngestTailTests.chunks(whole.db))
    }

    @Test("a piece merged before chunks that start in its last millisecond: those are rewritten with it, and read in time order")
    func mergeTakesTheChunkThatStartsWhereItEnds() throws {
        // Ten 1 MB titles a second, each second cut across two chunks; the
        // pieces come last first, so each merges before stored chunks.
        let lines = (0..<60).map { i in Self.title(t0 + Int64(i / 10) * 1000, "t\(i)") }
        let cut = Scratch()
        let pieces = stride(from: 0, to: 60, by: 13).map { cut.write("p\($0).ndjson", Array(lines[$0..<min($0 + 13, 60)])) }
        for path in pieces.reversed() { _ = try Ingester(store: try EventStore(path: cut.db)).ingest(path: path) }
        #expect(try EventStore(path: cut.db).check().isClean)
        Self.expectBounded(try Self.eventChunks(cut.db))
    }
}

/// `EventSeries.chunkRanges`: random series of small and large payloads.
@Suite struct EventChunkRangesTests {
    static func series(seed: UInt64, count: Int, largeShare: Double) -> EventSeries {
        var random = SplitMix64(seed: seed)
        var s = EventSeries()
        for i in 0..<count {
            let large = Double(random.next() % 1000) / 1000 < largeShare
            let size = large ? 100_000 + Int(random.next() % 1_400_000) : 20 + Int(random.next() % 300)
            s.append(ts: t0 + Int64(i), kind: .roomTitleChange, payload: ArraySlice(repeating: 0x61, count: size))
        }
        return s
    }

    @Test("chunks cover the events in order, hold 1 to 2,048 events, and each takes as many as fit", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func rangesAreGreedyAndBounded(seed: UInt64) {
        let s = Self.series(seed: seed, count: seed % 2 == 0 ? 5000 : 300, largeShare: seed % 2 == 0 ? 0.003 : 0.1)
        let ranges = s.chunkRanges()
        func bytes(_ r: Range<Int>) -> Int { s.block.payloadEnds[r.upperBound - 1] - s.block.payloadRange(r.lowerBound).lowerBound }
        #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == s.count)
        for (k, r) in ranges.enumerated() {
            #expect(!r.isEmpty && r.count <= EventStore.chunkCapacity)
            #expect(r.count == 1 || bytes(r) <= EventStore.chunkPayloadBytes)
            guard k + 1 < ranges.count else { continue }
            #expect(ranges[k + 1].lowerBound == r.upperBound)
            // Ended full: by count, or the next event would not fit.
            #expect(r.count == EventStore.chunkCapacity || bytes(r.lowerBound..<(r.upperBound + 1)) > EventStore.chunkPayloadBytes)
        }
        // Some were cut by bytes.
        #expect(ranges.contains { $0.count < EventStore.chunkCapacity && $0.upperBound < s.count })
    }

    @Test("payloads that fit in one chunk's bytes are cut by count alone, as before")
    func smallPayloadsAreCutByCount() {
        let s = Self.series(seed: 9, count: 5000, largeShare: 0)
        #expect(s.chunkRanges() == [0..<2048, 2048..<4096, 4096..<5000])
    }
}

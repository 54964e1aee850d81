import Testing
import MQATestSupport
@testable import MQABase
@testable import MQAModel
@testable import MQAStore

/// A merge that decodes its chunks a window at a time writes the chunks a
/// merge of them all at once writes, byte for byte, and drops the same
/// repeats: windows of one chunk, of a few, and none, over series whose
/// milliseconds hold many items (so chunks meet inside one) and whose
/// pieces come shuffled and sent twice.
@Suite struct WindowedMergeTests {
    /// Stores with these merge windows see the same pieces: the first
    /// merges whole, the others in windows of one chunk (any merge over
    /// two chunks), of three chunks' items, and of 1 MiB.
    static let windows: [MergeWindow] = [
        .whole, MergeWindow(items: 1, bytes: .max, chunks: 2),
        MergeWindow(items: 3 * EventStore.chunkCapacity, bytes: .max, chunks: .max),
        MergeWindow(items: .max, bytes: 1 << 20, chunks: 2),
    ]

    static func stores(_ scratch: ScratchFolder, windows: [MergeWindow] = windows) throws -> [(store: EventStore, client: Int64)] {
        try windows.enumerated().map { k, window in
            let store = try EventStore(path: scratch.file("w\(k).sqlite"))
            store.mergeWindow = window
            return (store, try store.clientID(meeting: Array("m".utf8), uid: Array("u".utf8)))
        }
    }

    /// Every chunk row of `table`, in reading order, as text.
    static func rows(_ store: EventStore, _ table: String) throws -> [String] {
        let select = try store.db.prepare("SELECT first_ts, last_ts, count, hex(data) FROM \(table) ORDER BY first_ts, id")
        var rows: [String] = []
        while try select.step() {
            rows.append("\(select.int64(0)) \(select.int64(1)) \(select.int(2)) \(select.string(3) ?? "")")
        }
        return rows
    }

    /// `count` items' times, often equal, cut into `pieces` runs of
    /// shuffled order, some sent again.
    static func pieces(_ r: inout SplitMix64, count: Int, pieces: Int) -> [[Int]] {
        var order = Array(0..<count)
        order.shuffle(using: &r)
        var out = stride(from: 0, to: count, by: count / pieces).map { Array(order[$0..<min($0 + count / pieces, count)]) }
        out.append(Array(order[0..<count / 7]))  // sent twice: all repeats
        return out
    }

    /// Times step by 0–2 ms, or (`steps` 1) stand still: a stuck clock
    /// puts chunks' worth of items in one millisecond, and a window that
    /// ended inside it would write some of them before the repeats of
    /// them in the next window were looked for.
    @Test(arguments: [3, 1] as [UInt64])
    func reportChunksAreTheWholeMergesChunks(steps: UInt64) throws {
        let scratch = ScratchFolder()
        let stores = try Self.stores(scratch)
        var r = SplitMix64(seed: 71)
        let count = 30_000
        var ts: [Int64] = []
        var t: Int64 = 1_700_000_000_000
        for _ in 0..<count { t += Int64(r.next() % steps); ts.append(t) }
        let values: [DecimalNumber] = [.null, DecimalNumber(mantissa: 1, exponent: 0), DecimalNumber(mantissa: 42, exponent: -1)]
        var columns = ReportColumn.allCases.map { _ in (0..<count).map { _ in values[Int(r.next() % 3)] } }
        // Items of one millisecond are mostly distinct, though a few repeat.
        columns[0] = (0..<count).map { DecimalNumber(mantissa: Int64($0 % 9_000), exponent: 0) }
        for piece in Self.pieces(&r, count: count, pieces: 6) {
            let series = ReportSeries(ts: piece.map { ts[$0] }, columns: columns.map { c in piece.map { c[$0] } })
            let dropped = try stores.map { try $0.store.storeReports(series, client: $0.client) }
            #expect(Set(dropped).count == 1, "repeats dropped: \(dropped)")
        }
        let whole = try Self.rows(stores[0].store, "report_chunks")
        #expect(whole.count > 10)
        for (store, _) in stores.dropFirst() { #expect(try Self.rows(store, "report_chunks") == whole) }
    }

    /// Events of large payloads are cut by bytes too, into chunks that may
    /// end in the millisecond where the next one starts.
    @Test func eventChunksAreTheWholeMergesChunks() throws {
        let scratch = ScratchFolder()
        // Two stores only: payloads of megabytes are slow in a debug build.
        let stores = try Self.stores(scratch, windows: [.whole, Self.windows[3]])
        var r = SplitMix64(seed: 72)
        let count = 8_000
        var items: [(ts: Int64, kind: EventKind, payload: [UInt8])] = []
        var t: Int64 = 1_700_000_000_000
        for i in 0..<count {
            t += Int64(r.next() % 2)
            let big = i % 2000 == 1  // two in 2,048 events pass 4 MiB
            let payload = big ? Array(repeating: UInt8(ascii: "x"), count: 2_200_000 + Int(r.next() % 1000)) : Array(#"{"tier":"\#(r.next() % 3)"}"#.utf8)
            items.append((t, EventKind(rawValue: UInt8(6 + r.next() % 2))!, payload))
        }
        for piece in Self.pieces(&r, count: count, pieces: 3) {
            var series = EventSeries()
            for i in piece { series.append(ts: items[i].ts, kind: items[i].kind, payload: items[i].payload[...]) }
            let dropped = try stores.map { try $0.store.storeEvents(series, client: $0.client) }
            #expect(Set(dropped).count == 1, "repeats dropped: \(dropped)")
        }
        let whole = try Self.rows(stores[0].store, "event_chunks")
        // Cut by bytes: the first chunk ends before the second large payload.
        #expect(whole.dropLast().contains { Int($0.split(separator: " ")[2])! < EventStore.chunkCapacity })
        for (store, _) in stores.dropFirst() { #expect(try Self.rows(store, "event_chunks") == whole) }
    }
}

import Foundation
import MQASimulator
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Summaries computed on other threads and connections, during an ingest
/// and after it: the rows must be the ones a single-threaded pass writes,
/// and rows from a snapshot older than the meeting's data must never land.
@Suite struct SummaryWorkersTests {
    /// Every summary row of every meeting, in a stable order.
    static func allSummaryRows(_ store: EventStore) throws -> [String] {
        var out: [String] = []
        for table in SummaryTable.allCases {
            let s = try store.db.prepare("SELECT * FROM \(table.rawValue) ORDER BY meeting_id, rowid")
            while try s.step() { out.append("\(table.rawValue) " + (0..<s.columnCount).map { "\(s.value($0))" }.joined(separator: "|")) }
        }
        return out
    }

    static func staleCount(_ store: EventStore) throws -> Int {
        let s = try store.db.prepare("SELECT count(*) FROM meetings WHERE stale != 0")
        return try s.step() ? s.int(0) : -1
    }

    /// A simulated fleet of one file per client, so that meetings finish
    /// one after another while later files are read.
    static func fleetFiles(_ s: Scratch, meetings: Int) throws -> [String] {
        let logs = URL(fileURLWithPath: s.dir).appendingPathComponent("logs")
        _ = try Simulator(seed: 11, meetings: meetings).writeFiles(to: logs)
        return try FileManager.default.subpathsOfDirectory(atPath: logs.path)
            .filter { $0.hasSuffix(".ndjson") || $0.hasSuffix(".ndjson.zst") }.sorted().map { logs.path + "/" + $0 }
    }

    /// The summary path analyses without keeping connections and
    /// timelines; its rows must be those of the whole analysis.
    @Test func summaryRowsNeedNoTimelines() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        ingester.summarizeWhileReading = false
        _ = try ingester.ingest(paths: try Self.fleetFiles(s, meetings: 6))
        let config = TierConfig()
        var compared = 0
        try store.forEachMeetingPage(stale: true, size: 100) { page in
            for (id, meeting) in page {
                let (log, whole) = try #require(try store.analyzeMeeting(meeting, config: config))
                #expect(!whole.timelines.isEmpty)
                let expected = SummaryRows(meetingID: id, log: log, analysis: whole)
                let got = try #require(try store.summaryRows(meetingID: id, meeting: meeting, config: config))
                for table in SummaryTable.allCases { #expect(got.rows(table) == expected.rows(table), "\(meeting) \(table)") }
                compared += 1
            }
        }
        #expect(compared == 6)
    }

    /// `check` compares stored summary rows with recomputed ones a row at
    /// a time: an edited value names its row and column, a missing or an
    /// extra row the two counts.
    @Test func checkNamesTheSummaryRowThatDiffers() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: try Self.fleetFiles(s, meetings: 3))
        _ = try store.refreshSummaries()
        #expect(try store.check().damage.isEmpty)
        try store.db.execute(
            "UPDATE participant_summary SET flaps = flaps + 7 WHERE rowid = (SELECT rowid FROM participant_summary WHERE meeting_id = (SELECT min(meeting_id) FROM participant_summary) ORDER BY rowid LIMIT 1 OFFSET 1)")
        try store.db.execute("DELETE FROM track_summary WHERE rowid = (SELECT max(rowid) FROM track_summary)")
        let reasons = try store.check().damage.map(\.reason)
        #expect(reasons.count == 2, "\(reasons)")
        #expect(reasons.contains { $0.contains("row 2, column flaps: stored") }, "\(reasons)")
        #expect(reasons.contains { $0.contains("rows stored,") && $0.contains("recomputed") }, "\(reasons)")
    }

    @Test func summariesDuringIngestEqualSummariesAfter() throws {
        let s = Scratch()
        let files = try Self.fleetFiles(s, meetings: 8)
        var rows: [[String]] = []
        var summarizedDuring = 0
        for during in [false, true] {
            let path = s.dir + "/store-\(during).sqlite"
            let store = try EventStore(path: path)
            let ingester = Ingester(store: store)
            ingester.summarizeWhileReading = during
            // Inputs share a commit up to this many lines: several commits,
            // so that meetings are done (committed and untouched) before the end.
            ingester.commitEvery = 500
            _ = try ingester.ingest(paths: files)
            let left = try Self.staleCount(store)
            if during {
                // How many the low-priority worker finished depends on the
                // machine's load; that it was handed the meetings does not.
                summarizedDuring = ingester.summariesOffered
                #expect(left <= 8)
            } else {
                #expect(left == 8, "nothing is summarized during the ingest when asked not to")
                #expect(ingester.summariesOffered == 0)
            }
            let refreshed = try store.refreshSummaries()
            #expect(refreshed == left)
            #expect(try Self.staleCount(store) == 0)
            #expect(try store.check().damage.isEmpty)
            rows.append(try Self.allSummaryRows(store))
        }
        // All but the meetings of the last commits were handed over during the ingest.
        #expect(summarizedDuring >= 6)
        #expect(rows[0].count > 8)
        #expect(rows[0] == rows[1])
    }

    /// The summaries after an ingest take each chunk it wrote from memory
    /// (`RecentChunks`), once, and their rows are those `check` recomputes
    /// by decoding the chunks.
    @Test func summariesTakeTheIngestsChunksBack() throws {
        let s = Scratch()
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        ingester.summarizeWhileReading = false
        _ = try ingester.ingest(paths: try Self.fleetFiles(s, meetings: 5))
        let recent = try #require(store.recentChunks)
        #expect(recent.hits == 0)
        _ = try store.refreshSummaries()
        #expect(store.recentChunks == nil, "dropped after the pass")
        let chunks = try store.db.prepare("SELECT (SELECT count(*) FROM report_chunks) + (SELECT count(*) FROM event_chunks)")
        let rows = try chunks.step() ? chunks.int(0) : -1
        chunks.reset()
        #expect(rows > 10)
        #expect(recent.hits == rows, "every stored chunk read back from memory")
        #expect(recent.dropped == 0)
        #expect(try store.check().damage.isEmpty)
    }

    /// A store with meeting m-1 ingested from `first` (10 reports) by an
    /// ingester that summarizes nothing itself, and m-1's summary computed
    /// on another connection, as a worker does, before more data comes.
    static func summaryBeforeMoreData(_ s: Scratch) throws
        -> (store: EventStore, ingester: Ingester, reader: EventStore, old: ComputedSummary) {
        let first = s.write("a.ndjson", (0..<10).map { qr(t0 + Int64($0) * 2000) })
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store, nowMs: t0 + 86_400_000)
        ingester.summarizeWhileReading = false
        _ = try ingester.ingest(path: first)
        let reader = try EventStore.openExisting(path: s.db)
        let old = try reader.computeSummary(meetingID: 1, config: TierConfig())
        #expect(old.rows != nil)
        return (store, ingester, reader, old)
    }

    @Test func rowsFromAnOlderSnapshotAreNotStored() throws {
        let s = Scratch()
        let (store, ingester, reader, old) = try Self.summaryBeforeMoreData(s)
        let second = s.write("b.ndjson", (10..<20).map { qr(t0 + Int64($0) * 2000, mos: "2.1") })
        _ = try ingester.ingest(path: second)
        #expect(try store.storeSummary(old) == false, "the meeting was stamped anew by the second file")
        #expect(try Self.staleCount(store) == 1)
        // Computed after the second file: stored, and the meeting is fresh.
        let new = try reader.computeSummary(meetingID: 1, config: TierConfig())
        #expect(new.stamp != old.stamp)
        #expect(try store.storeSummary(new) == true)
        #expect(try Self.staleCount(store) == 0)
        // check() recomputes every fresh meeting: the stored rows are the second file's.
        #expect(try store.check().damage.isEmpty)
    }

    @Test func workersComputeEveryQueuedMeetingOnce() throws {
        let s = Scratch()
        let files = try Self.fleetFiles(s, meetings: 5)
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        ingester.summarizeWhileReading = false
        _ = try ingester.ingest(paths: files)
        let workers = try SummaryWorkers(path: s.db, count: 2, capacity: 2)
        var offered = 0
        var results: [ComputedSummary] = []
        for id in Int64(1)...5 {
            while workers.isFull { results += try workers.takeSome().map { try $0.get() } }
            #expect(workers.offer(id))
            offered += 1
        }
        while results.count < offered { results += try workers.takeSome().map { try $0.get() } }
        workers.close()
        #expect(workers.offer(6) == false, "a closed pool takes no more work")
        #expect(results.map(\.meetingID).sorted() == [1, 2, 3, 4, 5])
        #expect(results.allSatisfy { $0.rows != nil && $0.stamp != 0 })
    }

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

    /// The writer marks a meeting stale once per write transaction (one
    /// stamp for the transaction, the meetings it marked remembered); a
    /// summary computed from an earlier commit must still never be stored
    /// in a transaction that gave the meeting data. It is offered here
    /// (from `onReject`, inside the open shared transaction) after an
    /// input gave its meeting data, after an input that failed and was
    /// undone, and after one that touched the meeting again, when the
    /// writer no longer writes the mark.
    @Test("a summary from an earlier commit is refused in a transaction that gave its meeting data",
          arguments: [false, true])
    func olderSummaryRefusedWithinTheTransaction(withFailure: Bool) throws {
        let s = Scratch()
        let (store, ingester, _, old) = try Self.summaryBeforeMoreData(s)
        let b = s.write("b.ndjson", (10..<20).map { qr(t0 + Int64($0) * 2000, mos: "2.1") })
        var paths = [b]
        if withFailure {
            paths.append(try Self.broken(s, "c.ndjson.zst", (20..<30).map { qr(t0 + Int64($0) * 2000, mos: "1.5") }))
        }
        paths.append(s.write("d.ndjson", ["{bad"] + (30..<40).map { qr(t0 + Int64($0) * 2000, mos: "3.3") }))
        paths.append(s.write("e.ndjson", ["{bad"] + (0..<5).map { qr(t0 + Int64($0) * 2000, uid: "bob", meeting: "m-2") }))
        var stored: [Bool] = []
        ingester.onReject = { _ in stored.append((try? store.storeSummary(old)) ?? true) }
        var failures = 0
        ingester.onInputError = { _ in failures += 1 }
        _ = try ingester.ingest(paths: paths)
        #expect(failures == (withFailure ? 1 : 0))
        #expect(stored == [false, false], "\(stored)")
        #expect(try Self.stale(store, "m-1") > 1)
        #expect(try store.check().damage.isEmpty)
    }
}

extension SummaryRows {
    /// Every row of `table`, for comparing two computations.
    func rows(_ table: SummaryTable) -> [[SQLValue]] {
        var out: [[SQLValue]] = []
        forEach(table) { out.append($0) }
        return out
    }

}

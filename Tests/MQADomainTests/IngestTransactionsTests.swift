import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAStore
@testable import MQAIngest

/// The store's transactions, failing on cue: the Nth COMMIT, an input's
/// savepoint, or the undo of a failed input; or losing the transaction
/// after the Nth input's savepoint is released, without a word, as
/// SQLite gives it up after a statement whose error someone else holds.
final class FailingTransactions: IngestTransactions {
    let store: EventStore
    var failCommit: Int?
    var failBeginInput: Int?
    var failUndo = false
    var loseAfterInput: Int?
    private(set) var inputsEnded = 0
    private(set) var commits = 0
    private(set) var inputs = 0
    private(set) var undos = 0

    struct Injected: Error, CustomStringConvertible {
        var what: String
        var description: String { "injected failure: \(what)" }
    }

    init(_ store: EventStore) { self.store = store }

    var isOpen: Bool { store.isOpen }
    func begin() throws { try store.begin() }
    func commit() throws {
        commits += 1
        if commits == failCommit {
            // As on a full disk: the COMMIT fails and SQLite rolls back.
            store.rollback()
            throw Injected(what: "commit \(commits)")
        }
        try store.commit()
    }
    func rollback() { store.rollback() }
    func beginInput() throws {
        inputs += 1
        if inputs == failBeginInput { throw Injected(what: "savepoint \(inputs)") }
        try store.beginInput()
    }
    func endInput() throws {
        try store.endInput()
        inputsEnded += 1
        if inputsEnded == loseAfterInput { store.rollback() }
    }
    func undoInput() -> Bool {
        undos += 1
        return failUndo ? false : store.undoInput()
    }
}

/// Every failure of the ingest's write protocol surfaces: the ingest stops
/// with an `IngestFailure` whose summary counts exactly what the store
/// holds, and an ingest run again completes the store to what one clean
/// run gives. (A failed last COMMIT used to be swallowed: exit 0 with a
/// third of the demo missing on a full disk.)
@Suite struct IngestTransactionsTests {
    let s = Scratch()

    /// Eight logs of one client each, 200 reports apiece.
    func logs() -> [String] {
        (0..<8).map { k in
            s.write("log-\(k).ndjson", (0..<200).map { i in qr(t0 + Int64(i) * 2000, uid: "u\(k)", meeting: "m-\(k % 3)") })
        }
    }

    func reference(_ paths: [String]) throws -> String {
        let store = try EventStore(path: s.dir + "/reference.sqlite")
        _ = try Ingester(store: store).ingest(paths: paths)
        return try exportText(store)
    }

    func lines(_ text: String) -> Int { text.split(separator: "\n").count }

    /// Runs an ingest whose transactions fail as `configure` says; returns
    /// the failure it must end with and the store.
    func failingIngest(_ paths: [String], commitEvery: Int? = nil, _ configure: (FailingTransactions) -> Void) throws
        -> (IngestFailure?, EventStore)
    {
        let store = try EventStore(path: s.db)
        let ingester = Ingester(store: store)
        ingester.summarizeWhileReading = false
        if let commitEvery { ingester.commitEvery = commitEvery }
        let failing = FailingTransactions(store)
        configure(failing)
        ingester.transactions = failing
        do {
            _ = try ingester.ingest(paths: paths)
            return (nil, store)
        } catch let failure as IngestFailure {
            return (failure, store)
        }
    }

    /// The store after the failure completes, by a second ingest, to the
    /// clean run's export.
    func expectCompletes(_ paths: [String], _ expected: String) throws {
        let store = try EventStore(path: s.db)
        let again = try Ingester(store: store).ingest(paths: paths)
        #expect(again.files == paths.count)
        #expect(try exportText(store) == expected)
    }

    @Test("a failed last COMMIT fails the ingest; nothing is counted that is not stored")
    func failedLastCommit() throws {
        let paths = logs()
        let expected = try reference(paths)
        let (failure, store) = try failingIngest(paths) { $0.failCommit = 1 }
        let f = try #require(failure, "the failed COMMIT was swallowed")
        #expect("\(f)".contains("injected failure: commit 1"))
        #expect(f.committed.events == 0)
        #expect(try exportText(store).isEmpty)
        try expectCompletes(paths, expected)
    }

    @Test("a transaction the store gave up is never begun anew and counted as stored", arguments: [1, 3, 6])
    func transactionLostUnderTheIngest(after input: Int) throws {
        let paths = logs()
        let expected = try reference(paths)
        // 500 lines a commit: two or three inputs a transaction.
        let (failure, store) = try failingIngest(paths, commitEvery: 500) { $0.loseAfterInput = input }
        let f = try #require(failure, "the lost transaction was begun anew and the ingest went on")
        #expect("\(f)".contains("gave up the open write transaction"), "\(f)")
        let stored = try exportText(store)
        #expect(f.committed.events == lines(stored), "summary \(f.committed.events) vs \(lines(stored)) stored")
        #expect(lines(stored) < lines(expected))
        #expect(try store.check().isClean)
        try expectCompletes(paths, expected)
    }

    @Test("a failed COMMIT in the middle: the summary counts the earlier commits, and they are stored", arguments: [2, 3, 5])
    func failedMiddleCommit(failing: Int) throws {
        let paths = logs()
        let expected = try reference(paths)
        // 300 lines a commit: inputs end and checkpoints land between commits.
        let (failure, store) = try failingIngest(paths, commitEvery: 300) { $0.failCommit = failing }
        let f = try #require(failure)
        let stored = try exportText(store)
        #expect(f.committed.events == lines(stored), "summary \(f.committed.events) vs \(lines(stored)) stored")
        #expect(lines(stored) > 0 && lines(stored) <= lines(expected))
        #expect(try store.check().isClean)
        try expectCompletes(paths, expected)
    }

    /// Four logs of one client each, each split over three consecutive
    /// files: joined by the writer and encoded off it (`SeriesEncoder`).
    func splitLogs() -> [String] {
        (0..<4).flatMap { k in
            let lines = (0..<300).map { i in qr(t0 + Int64(i) * 2000, uid: "u\(k)", meeting: "m-\(k % 2)") }
            return (0..<3).map { piece in s.write("log-\(k).\(piece).ndjson", Array(lines[(piece * 100)..<(piece * 100 + 100)])) }
        }
    }

    @Test("a failed COMMIT while joined logs are being encoded: what is counted is stored, and a re-run completes it",
          arguments: [1, 2, 4])
    func failedCommitWithJoinedLogs(failing: Int) throws {
        let paths = splitLogs()
        let expected = try reference(paths)
        let clean = Ingester(store: try EventStore(path: s.dir + "/clean.sqlite"))
        _ = try clean.ingest(paths: paths)
        #expect(clean.piecesJoined == 8 && clean.seriesEncodedAside == 4)
        let (failure, store) = try failingIngest(paths, commitEvery: 250) { $0.failCommit = failing }
        let f = try #require(failure)
        let stored = try exportText(store)
        #expect(f.committed.events == lines(stored), "summary \(f.committed.events) vs \(lines(stored)) stored")
        #expect(try store.check().isClean)
        try expectCompletes(paths, expected)
    }

    @Test("a failed savepoint stops the ingest with the error")
    func failedSavepoint() throws {
        let paths = logs()
        let expected = try reference(paths)
        let (failure, store) = try failingIngest(paths) { $0.failBeginInput = 4 }
        let f = try #require(failure)
        #expect("\(f)".contains("injected failure: savepoint 4"))
        #expect(f.committed.events == lines(try exportText(store)))
        try expectCompletes(paths, expected)
    }

    @Test("an input that fails and cannot be undone alone gives up the transaction whole")
    func failedUndo() throws {
        var paths = logs()
        // A truncated zstd input in the middle fails after its first batch.
        let whole = try Data(contentsOf: URL(fileURLWithPath: paths[0]))
        var compressed: [UInt8] = []
        try Array(whole).withUnsafeBytes { try ZstdCompressor(level: 3).compress($0, appendingTo: &compressed) }
        let cut = s.dir + "/cut.ndjson.zst"
        #expect(FileManager.default.createFile(atPath: cut, contents: Data(compressed.prefix(compressed.count / 2))))
        paths.insert(cut, at: 3)
        let (failure, store) = try failingIngest(paths) { $0.failUndo = true }
        let f = try #require(failure, "an input that could not be undone must stop the ingest")
        #expect("\(f)".contains("could not undo the failed input"))
        #expect(f.committed.events == lines(try exportText(store)))
    }
}

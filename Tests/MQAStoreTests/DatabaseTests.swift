import Foundation
import Testing
@testable import MQABase
@testable import MQAStore

@Suite final class DatabaseTests {
    /// Swift Testing makes one instance per test, so each test has its own
    /// file, removed with its WAL files when the test ends.
    private let path = NSTemporaryDirectory() + "mqa-db-\(UUID().uuidString).sqlite"
    func temporaryPath() -> String { path }
    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func transactionRollsBackOnThrow() throws {
        let db = try Database(path: temporaryPath())
        try db.execute("CREATE TABLE t (x INTEGER)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                let s = try db.cached("INSERT INTO t VALUES (?)")
                s.bind(1, 1)
                try s.run()
                throw Boom()
            }
        }
        let count = try db.prepare("SELECT count(*) FROM t")
        #expect(try count.step())
        #expect(count.int(0) == 0)
    }

    @Test func errorsCarryCodeMessageAndSQL() throws {
        let db = try Database(path: temporaryPath())
        do {
            _ = try db.prepare("SELECT nope FROM nowhere")
            Issue.record("expected a failure")
        } catch let error as DatabaseError {
            #expect(error.primaryCode == 1)
            #expect(error.message.contains("nowhere"))
            #expect(error.sql == "SELECT nope FROM nowhere")
        }
    }

    @Test func cachedStatementsAreReused() throws {
        let db = try Database(path: temporaryPath())
        let a = try db.cached("SELECT 1")
        let b = try db.cached("SELECT 1")
        #expect(a === b)
    }

    @Test func namedParametersBind() throws {
        let db = try Database(path: temporaryPath())
        let s = try db.prepare("SELECT :a + :b")
        #expect(s.parameterNames == ["a", "b"])
        s.bind(name: "a", .int(2))
        s.bind(name: "b", .int(3))
        #expect(try s.step())
        #expect(s.int(0) == 5)
    }
}

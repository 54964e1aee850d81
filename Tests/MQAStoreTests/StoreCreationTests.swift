import Foundation
import Testing
@testable import MQAStore

/// Creating a store where an earlier one was removed.
@Suite final class StoreCreationTests {
    private let dir = NSTemporaryDirectory() + "mqa-create-\(UUID().uuidString)"
    init() throws { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// `rm store.sqlite` after a kill (or during an ingest) leaves its
    /// `-wal` and `-shm`. SQLite replayed that WAL onto the next store made
    /// at the name: "database disk image is malformed", or the removed
    /// store's meetings back in the new one, silently.
    @Test func aRemovedStoresWalIsNotReplayedOntoTheNewOne() throws {
        let old = dir + "/old.sqlite", path = dir + "/store.sqlite"
        let db = try Database(path: old)
        try db.execute("PRAGMA wal_autocheckpoint=0")
        try db.execute("CREATE TABLE leftover (x INTEGER)")
        try db.execute("INSERT INTO leftover VALUES (1)")
        // The old store's companions under the new name, with frames in the
        // WAL; no process has them open (the open one is old.sqlite's).
        for suffix in ["-wal", "-shm"] { try FileManager.default.copyItem(atPath: old + suffix, toPath: path + suffix) }
        var size = stat()
        #expect(stat(path + "-wal", &size) == 0 && size.st_size > 0)

        let store = try EventStore(path: path)
        #expect(try store.schemaVersion() == EventStore.schemaVersion)
        let tables = try store.db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'leftover'")
        #expect(try tables.step() && tables.int(0) == 0, "the removed store's table came back")
        let check = try store.db.prepare("PRAGMA integrity_check")
        #expect(try check.step() && check.string(0) == "ok")
    }

    /// A store a later mqa wrote (schema 4) was read and written as this
    /// one's, its marker rewritten to 3, with exit 0.
    @Test func aStoreOfANewerSchemaIsRefused() throws {
        let path = dir + "/store.sqlite"
        do {
            let store = try EventStore(path: path)
            try store.db.execute("PRAGMA user_version = \(EventStore.schemaVersion + 1)")
        }
        for open in [{ _ = try EventStore(path: path) }, { _ = try EventStore.openExisting(path: path) }] as [() throws -> Void] {
            #expect {
                try open()
            } throws: {
                "\($0)".contains("was written by a newer mqa (store schema \(EventStore.schemaVersion + 1);")
            }
        }
        let db = try Database(path: path, access: .readOnly)
        let version = try db.prepare("PRAGMA user_version")
        #expect(try version.step() && version.int(0) == EventStore.schemaVersion + 1)
    }
}

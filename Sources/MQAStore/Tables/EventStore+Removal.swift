#if canImport(Glibc)
import Glibc
#endif
import MQABase
import MQAModel

/// A file by device and inode: what a path named when it was looked at.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64

    init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }
}

extension EventStore {
    /// Removes the store when it holds no input and no other connection has
    /// it open: an ingest that created it and could read none of its inputs
    /// leaves no empty store behind. Returns whether it removed it.
    ///
    /// Never removes a store another process opened or wrote: leaving WAL
    /// mode needs every other connection gone (else SQLite says busy, at
    /// once with no busy timeout); then, under an exclusive lock that keeps
    /// out any connection opened since, the store must still be in rollback
    /// mode (nobody switched it back), empty, and the file this store was
    /// opened on. A writer that opened the file meanwhile sees it gone once
    /// the lock is released (`init(path:)` checks) and opens anew.
    public func removeIfUnused() -> Bool {
        guard let identity, !hasInputs() else { return false }
        return db.withBusyTimeout(milliseconds: 0) {
            guard (try? journalMode(set: "DELETE")) == "delete" else { return false }
            guard (try? db.execute("BEGIN EXCLUSIVE")) != nil else { return false }
            defer { try? db.execute("ROLLBACK") }
            guard (try? journalMode(set: nil)) == "delete", !hasInputs(), FileIdentity(path: db.path) == identity else { return false }
            for suffix in EventStore.companionSuffixes { unlink(db.path + suffix) }
            return unlink(db.path) == 0
        }
    }

    /// Whether anything is stored: a meeting, or an input that got past its
    /// first line (a failed input leaves a `partial` row at line 0, which
    /// holds nothing). True when that cannot be read.
    private func hasInputs() -> Bool {
        let sql = """
            SELECT EXISTS (SELECT 1 FROM meetings)
                OR EXISTS (SELECT 1 FROM files WHERE status != 'partial' OR lines_done > 0 OR lines > 0)
            """
        guard let probe = try? db.prepare(sql) else { return true }
        return (try? probe.firstInt64()) != 0
    }

    /// Sets the journal mode (or reads it, for nil); returns the mode in force.
    private func journalMode(set mode: String?) throws -> String? {
        let statement = try db.prepare(mode.map { "PRAGMA journal_mode=\($0)" } ?? "PRAGMA journal_mode")
        guard try statement.step() else { return nil }
        return statement.string(0)?.lowercased()
    }
}

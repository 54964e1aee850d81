extension EventStore {
    /// Runs `body` inside one read transaction, so that every statement in
    /// it reads the same commit: a reader that reads a meeting in several
    /// passes (or checks a whole store) beside a running ingest must not
    /// see half of a commit. Inside a transaction already, `body` just runs
    /// in it.
    public func inSnapshot<T>(_ body: () throws -> T) rethrows -> T {
        let began = db.isAutocommit && (try? db.execute("BEGIN")) != nil
        // Nothing was written: ending it cannot lose anything.
        defer { if began { try? db.execute("ROLLBACK") } }
        return try body()
    }
}

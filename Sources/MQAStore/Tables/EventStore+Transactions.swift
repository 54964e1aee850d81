import MQABase

/// The write protocol of an ingest, as the store offers it: one shared
/// write transaction over many inputs (a commit per input was a fifth of
/// the time of an ingest of many small logs), a savepoint per input inside
/// it, so a failing input undoes only itself. Behind a protocol so that a
/// test can make any step fail and check that the failure surfaces.
package protocol IngestTransactions: AnyObject {
    /// Whether a write transaction is open.
    var isOpen: Bool { get }
    /// Takes the write lock (BEGIN IMMEDIATE), queueing behind another writer.
    func begin() throws
    /// Commits the open transaction; on a full disk this is what fails.
    func commit() throws
    /// Undoes the open transaction, if any; best effort (a failed ROLLBACK
    /// leaves SQLite to undo it when the connection closes).
    func rollback()
    /// Starts an input's savepoint inside the open transaction.
    func beginInput() throws
    /// Keeps the input's work in the open transaction.
    func endInput() throws
    /// Undoes the input's work alone; false when that failed too (the
    /// transaction must then be given up whole).
    func undoInput() -> Bool
}

extension EventStore: IngestTransactions {
    package var isOpen: Bool { !db.isAutocommit }
    package func begin() throws { try db.beginImmediate() }
    /// Fills the chunks the transaction left short (`compactTails`), then
    /// commits: a committed store never holds them.
    package func commit() throws {
        if isOpen { try compactTails() }
        try db.commit()
        tailsFilledInInput.removeAll()
    }

    package func rollback() {
        openTails.removeAll()
        tailItems.removeAll()
        tailsFilledInInput.removeAll()
        guard isOpen else { return }
        try? db.execute("ROLLBACK")
        forgetCachedIDs()
    }

    package func beginInput() throws {
        try db.execute("SAVEPOINT input")
        tailsFilledInInput.removeAll()
    }

    package func endInput() throws {
        try db.execute("RELEASE input")
        tailsFilledInInput.removeAll()
    }

    package func undoInput() -> Bool {
        reopenTailsFilledInInput()
        forgetCachedIDs()
        return (try? db.execute("ROLLBACK TO input; RELEASE input")) != nil
    }

    /// The store's file.
    package var path: String { db.path }

    /// Runs `body` in a write transaction of its own (rolled back if it throws).
    package func writing<T>(_ body: () throws -> T) throws -> T { try db.transaction(body) }
}

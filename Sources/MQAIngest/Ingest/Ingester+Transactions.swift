import MQAStore

// The shared write transaction: opened on demand, committed every
// `commitEvery` lines or `inputsPerCommit` inputs, rolled back on error,
// with the meetings it marked stale for the summary worker.
extension Ingester {
    /// Opens the shared write transaction unless one is open.
    func beginIfNeeded() throws {
        if !transactions.isOpen {
            try checkTransactionNotLost()
            try transactions.begin()
            transactionBegun = true
            transactionStamp = Int64(bitPattern: stamps.next() | 2) & Int64.max  // never 0 or 1
            staleMeetings.removeAll(keepingCapacity: true)
        }
    }

    /// Throws when the store no longer has open the transaction this
    /// ingester began (`transactionBegun`).
    func checkTransactionNotLost() throws {
        guard transactionBegun && !transactions.isOpen else { return }
        throw StoreError.inconsistent(
            "the store gave up the open write transaction (after a failed write, as on a full disk); "
                + "nothing since the last commit was stored")
    }

    /// Marks `client`'s meeting stale in the open transaction, unless it
    /// already is; returns the meeting's row id.
    func markStale(client: Int64) throws -> Int64 {
        if let meeting = clientMeetings[client] {
            if staleMeetings.insert(meeting).inserted { try store.markStale(meeting: meeting, stamp: transactionStamp) }
            return meeting
        }
        let meeting = try store.markStale(client: client, stamp: transactionStamp)
        // Bounded, as the store's cache of client ids is.
        if clientMeetings.count >= 1 << 16 { clientMeetings.removeAll(keepingCapacity: true) }
        clientMeetings[client] = meeting
        staleMeetings.insert(meeting)
        return meeting
    }

    /// After a rollback (an input's savepoint, or the transaction) the
    /// marks it undid are gone, and the client ids it gave may be given
    /// anew. A transaction that ends otherwise than by `commit` ends here
    /// (`rollBackOpenTransaction`), or is found lost before anything
    /// begins again (`checkTransactionNotLost`).
    func forgetStaleMarks() {
        staleMeetings.removeAll(keepingCapacity: true)
        clientMeetings.removeAll()
    }

    /// Commits the shared transaction, and hands the meetings it settled
    /// to the summary worker. Only once COMMIT has succeeded do the inputs
    /// it held count as stored: on a full disk the COMMIT is what fails.
    func commit() throws {
        try storeCarried()
        carriedBeforeInput = nil
        try storeEncoded(all: true)
        encodingBeforeInput = []
        try checkTransactionNotLost()
        try transactions.commit()
        transactionBegun = false
        linesSinceCommit = 0
        inputsSinceCommit = 0
        committedSummary = committedSummary + uncommitted
        uncommitted = IngestSummary()
        uncommittedInputParts = IngestSummary()
        committedInputs += wholeSinceCommit
        wholeSinceCommit = 0
        finishedSinceCommit = []
        summaries.committed()
    }

    /// Commits what the inputs stored (a failed one has undone itself).
    /// Throws when the COMMIT fails; the transaction is then rolled back
    /// (by `rollBackOpenTransaction`), and the caller reports only what
    /// earlier commits hold.
    func commitOpenTransaction() throws {
        try checkTransactionNotLost()
        guard transactions.isOpen else { return }
        try commit()
    }

    /// The ingest ends by an error: whatever its open transaction holds is
    /// undone, so the store stays at its last commit (which a re-run resumes).
    func rollBackOpenTransaction() {
        transactionBegun = false
        forgetStaleMarks()
        carried = nil
        carriedBeforeInput = nil
        encoding = []
        encodingBeforeInput = []
        uncommitted = IngestSummary()
        uncommittedInputParts = IngestSummary()
        wholeSinceCommit = 0
        finishedSinceCommit = []
        // A failed ROLLBACK leaves SQLite to roll back when the connection
        // closes, or the next opener to recover from the WAL: either way
        // nothing past the last commit remains, and the error that brought
        // us here is already on its way to the user.
        transactions.rollback()
    }
}

import MQAStore

/// Hands the meetings an ingest is done with to a summary worker while the
/// next inputs are read, and stores what the worker computed.
///
/// After a commit, the meetings it gave no data are likely done (logs come
/// a meeting, or a client, at a time), so they are summarized then, on the
/// other core, rather than after the last input. One given data again is
/// summarized again; rows from an older snapshot are not stored
/// (`storeSummary` compares stamps). What is never offered stays stale, and
/// `EventStore.refreshSummaries` does it after the inputs.
final class SummaryScheduler {
    private var workers: SummaryWorkers?
    /// Meetings given data since they were last offered, with the number of
    /// the commit that last gave them data.
    private var lastTouched: [Int64: Int] = [:]
    private var commits = 0
    /// Meetings offered to the worker (tests).
    private(set) var offered = 0

    /// With no workers, nothing is summarized during the inputs.
    init(workers: SummaryWorkers?) {
        self.workers = workers
    }

    /// The open transaction gave `meeting` data.
    func touched(meeting: Int64) {
        lastTouched[meeting] = commits + 1
    }

    /// The transaction committed: offers the meetings it gave no data.
    func committed() {
        commits += 1
        guard let workers else {
            lastTouched.removeAll()
            return
        }
        let settled = lastTouched.filter { $0.value < commits }.map(\.key)
        // More meetings settled than the worker can take: meetings of a few
        // lines each, thousands per commit. The worker would summarize a
        // handful while competing with the parser (5 % slower on 200,000
        // one-line meetings); the pass after the inputs does them all, on
        // every core.
        let offering = settled.count <= workers.capacity
        for meeting in settled {
            // No room: it stays stale for the pass after the inputs.
            if offering && workers.offer(meeting) { offered += 1 }
            lastTouched[meeting] = nil
        }
    }

    /// Stores the summaries the worker has computed, in the open transaction.
    func storeReady(into store: EventStore) throws {
        guard let workers else { return }
        for result in workers.takeReady() {
            // A meeting that fails here stays stale, and the pass after the
            // inputs reports its error.
            if case .success(let summary) = result { try store.storeSummary(summary) }
        }
    }

    /// Stops the worker and stores what it finished. Best effort: what is
    /// not stored stays stale, and the pass after the inputs redoes it.
    func finish(storingInto store: EventStore) {
        guard let workers else { return }
        self.workers = nil
        workers.close()
        let ready = workers.takeReady()
        guard !ready.isEmpty else { return }
        try? store.writing {
            for case .success(let summary) in ready { try store.storeSummary(summary) }
        }
    }
}

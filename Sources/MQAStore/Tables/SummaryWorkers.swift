import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MQABase
import MQAModel
import MQAAnalysis

/// One meeting's summary rows, computed from a snapshot in which the
/// meeting's stale stamp was `stamp`. The writer stores them only while the
/// stamp is unchanged: a later commit with data for the meeting has
/// stamped it anew, and then these rows are out of date.
package struct ComputedSummary {
    var meetingID: Int64
    var stamp: Int64
    /// nil when the meeting was fresh already or has no client.
    var rows: SummaryRows?
}

/// Computes meetings' summary rows on worker threads, each reading the
/// store through a connection of its own, while the caller goes on; the
/// caller writes the rows (SQLite has one writer). During an ingest one
/// worker summarizes the meetings the writer is done with while the next
/// inputs parse; afterwards, the leftovers go to as many workers as there
/// are cores. Analysis was a quarter of an ingest, on one core, after
/// everything else.
///
/// Memory is bounded: at most `capacity` meetings are queued, in work or
/// waiting to be taken.
///
/// `@unchecked Sendable`: every mutable property is read and written under
/// `condition`, and each worker thread uses only its own connection.
package final class SummaryWorkers: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [Int64] = []
    private var head = 0
    private var results: [Result<ComputedSummary, Error>] = []
    private var inWork = 0
    private var closed = false
    private var running = 0
    /// The workers' connections, closed by `close`: a connection left open
    /// at exit keeps the store's last commits in its `-wal` file, and a
    /// store copied as one file then lacks them.
    private var stores: [EventStore]
    package let capacity: Int

    /// Starts `count` workers over the store at `path`, which must exist.
    /// `background` workers run at a lower priority: beside an ingest they
    /// should use only what the parser and the writer leave of the cores.
    /// With `recent`, the workers take the chunks the ingest encoded from
    /// there rather than decoding them (`RecentChunks`).
    package init(path: String, count: Int, background: Bool = false, config: TierConfig = TierConfig(), capacity: Int = 64,
                 recent: RecentChunks? = nil) throws {
        self.capacity = capacity
        // Opened here, so that a store that cannot be read fails the caller.
        stores = try (0..<count).map { _ in try EventStore.openExisting(path: path) }
        for store in stores { store.codec.recent = recent }
        running = stores.count
        for index in stores.indices {
            let thread = Thread { [self] in
                #if os(Linux)
                // On Linux the nice value is per thread, and 0 names the calling one.
                if background { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }
                #endif
                serve(stores[index], config: config)
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
            }
            thread.stackSize = 1 << 22
            thread.start()
        }
    }

    /// Meetings queued, in work or computed and not yet taken.
    private var held: Int { queue.count - head + inWork + results.count }

    /// Queues a meeting when there is room; false when there is none (the
    /// meeting stays stale for a later pass).
    package func offer(_ meetingID: Int64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, held < capacity else { return false }
        queue.append(meetingID)
        condition.broadcast()
        return true
    }

    private var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Whether there is no room for another meeting until results are taken.
    var isFull: Bool {
        condition.lock()
        defer { condition.unlock() }
        return held >= capacity
    }

    /// The results computed so far, taken.
    package func takeReady() -> [Result<ComputedSummary, Error>] {
        condition.lock()
        defer { condition.unlock() }
        let ready = results
        results.removeAll(keepingCapacity: true)
        condition.broadcast()
        return ready
    }

    /// Waits until at least one result is ready or nothing is queued or in
    /// work, then takes what is ready.
    func takeSome() -> [Result<ComputedSummary, Error>] {
        condition.lock()
        defer { condition.unlock() }
        while results.isEmpty && (queue.count > head || inWork > 0) && running > 0 { condition.wait() }
        let ready = results
        results.removeAll(keepingCapacity: true)
        condition.broadcast()
        return ready
    }

    /// Stops the workers once they finish the meeting in hand; queued
    /// meetings, and the rest of a worker's take, are dropped (they stay
    /// stale). Waits for them to stop, then closes their connections: no
    /// read transaction or connection outlives it.
    package func close() {
        condition.lock()
        closed = true
        queue.removeAll()
        head = 0
        condition.broadcast()
        while running > 0 { condition.wait() }
        stores.removeAll()
        condition.unlock()
    }

    /// Meetings a worker takes at once, computed in one read transaction:
    /// one at a time, the transactions and hand-overs cost more than the
    /// analysis of a one-line meeting (200,000 of them took 4.5 s, not 2.8).
    static let meetingsPerTake = 32

    /// A worker's loop, until `close`; it holds `store` only while it runs.
    private func serve(_ store: EventStore, config: TierConfig) {
        condition.lock()
        while true {
            while queue.count == head && !closed { condition.wait() }
            if closed { break }
            // Near the end of the queue, smaller takes: one worker must not
            // be left with 32 meetings while the others have none.
            let share = max(1, (queue.count - head) / (2 * stores.count))
            let ids = Array(queue[head..<head + min(queue.count - head, SummaryWorkers.meetingsPerTake, share)])
            head += ids.count
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            inWork += ids.count
            condition.unlock()
            // `close` waits for the meetings in hand: it should not wait for
            // a whole take (up to 32 meetings on one core, while the pass
            // after the inputs waits to use them all).
            let computed = store.computeSummaries(meetingIDs: ids, config: config, stop: { isClosed })
            condition.lock()
            inWork -= ids.count
            results += computed
            condition.broadcast()
        }
        condition.unlock()
    }
}

import Foundation
import MQABase
import MQAModel
import MQAStore

/// The threads that parse inputs ahead of the writer, started as needed and
/// kept for the whole ingest. A thread per input cost the writer's thread
/// ~30 ms of `clone` calls on 1,777 inputs (a twentieth of its time).
///
/// Jobs start in the order given. A job may block (its input's queue is
/// full until the writer reaches that input), but the writer's input was
/// given before the ones ahead of it, so it has a thread first: a blocked
/// job only holds up inputs after its own. `limit` is how many inputs parse
/// at once, the writer's plus those it reads ahead.
final class ParseThreads: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var threads = 0
    private var idle = 0
    private var closed = false
    private let limit: Int

    init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
    }

    /// Runs `job` on an idle thread, a new one while fewer than `limit`
    /// exist, or else the first to come free.
    ///
    /// A thread counts as idle until it wakes and takes a job, so an idle
    /// thread already signalled for a job queued before must not be counted
    /// for this one: the jobs waiting outnumber the idle threads, and a new
    /// thread starts. Counting it twice left a job queued behind one that
    /// waited for it (an input's decision waits for the next input's first
    /// line), and the ingest hung (1 run in 15 of a debug build under load).
    func run(_ job: @escaping () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        precondition(!closed, "a job for closed parse threads")
        jobs.append(job)
        if jobs.count <= idle {
            condition.signal()
        } else if threads < limit {
            threads += 1
            let thread = Thread { [self] in serve() }
            thread.stackSize = 1 << 22  // 4 MB, as the parsing threads always had
            thread.start()
        }
    }

    /// Threads waiting for a job (for tests).
    var idleThreads: Int {
        condition.lock()
        defer { condition.unlock() }
        return idle
    }

    /// Lets the threads end once the jobs given so far are done.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            if jobs.isEmpty && !closed {
                // Counted idle while it yields too: a job given meanwhile
                // signals rather than starting a thread.
                idle += 1
                condition.wait(yieldingFirstUntil: { !jobs.isEmpty || closed })
                idle -= 1
            }
            if jobs.isEmpty {
                threads -= 1
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

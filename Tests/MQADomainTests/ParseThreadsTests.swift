import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

@Suite struct ParseThreadsTests {
    /// The shape of an ingest: each job fills its input's queue and blocks
    /// until the writer, taking the inputs in order, reaches it. With more
    /// inputs in flight than threads, jobs started in any other order than
    /// given would leave the writer's input waiting behind blocked ones
    /// (this hangs if the jobs are taken last-in first-out).
    @Test func inputsBlockedAheadNeverStarveTheWritersInput() {
        let ahead = 3
        let threads = ParseThreads(limit: 2)
        let lock = NSLock()
        var running = 0, mostRunning = 0
        var queues: [BatchQueue] = []
        func start(_ input: Int) {
            let queue = BatchQueue(capacity: 1)
            queues.append(queue)
            threads.run {
                lock.lock(); running += 1; mostRunning = max(mostRunning, running); lock.unlock()
                for _ in 0..<5 { _ = queue.put(.skip) }
                _ = queue.put(.failed(CancellationError()))
                lock.lock(); running -= 1; lock.unlock()
            }
        }
        let inputs = 40
        for i in 0...ahead { start(i) }
        var taken = 0
        for i in 0..<inputs {
            var items = 0
            loop: while true {
                switch queues[i].take() {
                case .skip: items += 1
                default: break loop
                }
            }
            #expect(items == 5)
            taken += 1
            if i + ahead + 1 < inputs { start(i + ahead + 1) }
        }
        threads.close()
        #expect(taken == inputs)
        #expect(mostRunning <= 2)
    }

    /// An idle thread signalled for one job is not idle for the next: two
    /// jobs given at once to a pool with one idle thread, the first waiting
    /// for the second to start (as an input's decision waits for the next
    /// input's first line), both run. Counting the thread for both left the
    /// second queued behind the first for good; the wait is bounded here,
    /// so that the failure is a failed expectation rather than a hang.
    @Test func twoJobsGivenAtOnceToOneIdleThreadBothStart() {
        for round in 0..<20 {
            let threads = ParseThreads(limit: 4)
            let warmed = DispatchSemaphore(value: 0)
            threads.run { warmed.signal() }
            warmed.wait()
            var spins = 0
            while threads.idleThreads < 1 && spins < 2_000 { usleep(500); spins += 1 }
            #expect(threads.idleThreads == 1)
            let secondStarted = DispatchSemaphore(value: 0)
            let firstDone = DispatchSemaphore(value: 0)
            let lock = NSLock()
            var sawSecond = false
            threads.run {
                let ok = secondStarted.wait(timeout: .now() + 5) == .success
                lock.lock(); sawSecond = ok; lock.unlock()
                firstDone.signal()
            }
            threads.run { secondStarted.signal() }
            #expect(firstDone.wait(timeout: .now() + 10) == .success)
            lock.lock(); let ok = sawSecond; lock.unlock()
            #expect(ok, "round \(round): the second job did not start while the first waited for it")
            threads.close()
            if !ok { break }  // each failing round waits out its 5 s
        }
    }

    /// `wait(yieldingFirstUntil:)` returns at once when ready, waits for a
    /// signal otherwise (after its yield, the lock held again), and with a
    /// deadline gives up at it.
    @Test func yieldingWaitSeesTheChangeAndKeepsTheLock() {
        /// Read and written under `condition`.
        final class Flags: @unchecked Sendable {
            var ready = false
            var other = false
        }
        let condition = NSCondition()
        let flags = Flags()
        condition.lock()
        #expect(condition.wait(yieldingFirstUntil: { false }, deadline: Date(timeIntervalSinceNow: 0.05)) == false)
        let setter = Thread {
            usleep(20_000)
            condition.lock()
            flags.ready = true
            condition.signal()
            condition.unlock()
        }
        setter.start()
        condition.wait(yieldingFirstUntil: { flags.ready })
        #expect(flags.ready)
        // Held: a second thread cannot set its flag meanwhile.
        let blocked = Thread {
            condition.lock()
            flags.other = true
            condition.unlock()
        }
        blocked.start()
        usleep(20_000)
        #expect(!flags.other)
        condition.unlock()
        #expect(condition.wait(yieldingFirstUntil: { true }, deadline: Date()) == true)
        for _ in 0..<1_000 where !(condition.withLock { flags.other }) { usleep(1_000) }
        #expect(condition.withLock { flags.other })
    }

    /// Many short jobs given one by one to threads that yield before they
    /// wait: every job runs once (a job given while an idle thread yields
    /// is taken by it, not lost).
    @Test func shortJobsGivenWhileThreadsYieldAllRun() {
        let threads = ParseThreads(limit: 3)
        let lock = NSLock()
        var ran = 0
        let done = DispatchSemaphore(value: 0)
        let jobs = 5_000
        for k in 0..<jobs {
            threads.run {
                lock.lock(); ran += 1; lock.unlock()
                if k == jobs - 1 { done.signal() }
            }
            if k % 7 == 0 { usleep(1) }
        }
        threads.close()
        #expect(done.wait(timeout: .now() + 30) == .success)
        // The last job may finish before earlier ones on other threads.
        for _ in 0..<3_000 where (lock.withLock { ran }) < jobs { usleep(1_000) }
        #expect(lock.withLock { ran } == jobs)
    }
}

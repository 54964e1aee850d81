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
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension NSCondition {
    /// Waits, the lock held, until `ready()`. Before the first wait the
    /// thread gives up its core once, the lock released, so that a thread
    /// that would make `ready()` true, runnable on the same core, can run
    /// first.
    ///
    /// Why: each wait that blocks costs a futex wait and a wake, and the
    /// wake often lands on the other core, idle and halted: on this 2-core
    /// virtual machine both cores were idle ~14 % of an ingest, in gaps of
    /// ~80 µs, with a thread runnable for most of them. Yielding once before
    /// the waits of the ingest's queues: 21 pairs on 4,939 files, wall
    /// 0.97x, cpu 0.99x; spinning up to 50 µs did no better.
    public func wait(yieldingFirstUntil ready: () -> Bool) {
        if ready() { return }
        unlock()
        sched_yield()
        lock()
        while !ready() { wait() }
    }

    /// `wait(yieldingFirstUntil:)` with a deadline: returns false when it
    /// passed with `ready()` still false.
    public func wait(yieldingFirstUntil ready: () -> Bool, deadline: Date) -> Bool {
        if ready() { return true }
        unlock()
        sched_yield()
        lock()
        while !ready() {
            if !wait(until: deadline) { return ready() }
        }
        return true
    }
}

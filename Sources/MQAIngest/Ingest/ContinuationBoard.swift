import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MQAStore

/// Which clients of a one-batch input run on across its edges: the index
/// in its batch's `clients` of the one whose log came in the input before
/// (`fromBefore`), and of the one whose log goes on in the next
/// (`intoNext`); -1 for none.
struct Continuation {
    var fromBefore = -1
    var intoNext = -1
}

/// Where the parsing threads of one ingest tell each other how their
/// inputs begin and end, so that a client's log split over consecutive
/// files (an app rolling its log every 100 KB) is encoded once, joined
/// by the writer (`SeriesEncoder` encodes it), rather than piece by piece
/// on the parsing threads and then again when the pieces are joined.
///
/// Each input tells the client of its first event line as soon as it has
/// read it, and at its end which client it hands on to the next input.
/// An input that cannot take part (not read afresh, a dump, more than one
/// batch, failed) tells "none" at once. The store ends up the same either
/// way; only the work differs.
///
/// Waits never close a cycle: an input waits for the next one's first
/// line (told before that input waits for anything) once the writer has
/// handed the next one out, and for the one before's decision, which
/// needs only this input's first line. Inputs are handed out in order.
final class ContinuationBoard: @unchecked Sendable {
    /// Guards everything below. Each waiting decision sleeps on a condition
    /// of its own (`sleeping`), and a telling wakes only the decisions that
    /// wait for it: with one condition for all, each telling woke every
    /// parsing thread waiting on the board, and an ingest of 4,939 small
    /// files made ~80,000 futex calls.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// The condition of each input whose decision waits, by input.
    private var sleeping: [Int: UnsafeMutablePointer<pthread_cond_t>] = [:]
    /// What each sleeping decision waits for: a telling of the other kind
    /// does not wake it. Woken by every telling of its neighbours, the
    /// decisions slept ~1.5 times each on 4,939 small files, mostly
    /// woken by the next input's first line while they waited for the
    /// input before.
    private var waitsFor: [Int: Wait] = [:]
    private enum Wait { case before, next }
    /// Inputs that may take part: not standard input, which is read only
    /// in its turn, so an input before it must never wait for it.
    private let joinable: [Bool]
    /// The highest input the writer has handed out, and those of them
    /// given to a parsing thread (the others failed to open).
    private var handedOut = -1
    private var parsed: Set<Int> = []
    /// Told so far; a nil value is "none".
    private var firsts: [Int: EventStore.ClientKey?] = [:]
    private var handsOn: [Int: EventStore.ClientKey?] = [:]
    private var closed = false

    init(paths: [String]) {
        joinable = paths.map { $0 != "-" }
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        for condition in sleeping.values { pthread_cond_destroy(condition); condition.deallocate() }
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    private func lock() { pthread_mutex_lock(mutex) }
    private func unlock() { pthread_mutex_unlock(mutex) }

    /// Wakes input `input`'s decision if it waits for `what` (the lock held).
    private func wake(_ input: Int, _ what: Wait) {
        if waitsFor[input] == what, let condition = sleeping[input] { pthread_cond_signal(condition) }
    }

    /// Sleeps until woken for input `input`'s decision, which waits for
    /// `what` (the lock held).
    private func sleep(_ input: Int, for what: Wait) {
        waitsFor[input] = what
        defer { waitsFor[input] = nil }
        let condition: UnsafeMutablePointer<pthread_cond_t>
        if let existing = sleeping[input] {
            condition = existing
        } else {
            condition = .allocate(capacity: 1)
            pthread_cond_init(condition, nil)
            sleeping[input] = condition
        }
        pthread_cond_wait(condition, mutex)
    }

    /// The writer has handed out `input`: to a parsing thread when `parsed`.
    /// The decisions before the inputs newly handed out may wait for that.
    func handedOut(_ input: Int, parsed: Bool) {
        lock()
        if parsed { self.parsed.insert(input) }
        if input > handedOut {
            for waiting in max(handedOut, 0)..<input { wake(waiting, .next) }
            handedOut = input
        }
        unlock()
    }

    /// Input `input`'s first event line names `client` (nil: none). Only
    /// the first telling counts; the decision before it waits for it.
    func tellFirst(_ client: EventStore.ClientKey?, of input: Int) {
        lock()
        if firsts[input] == nil {
            firsts[input] = .some(client)
            wake(input - 1, .next)
        }
        unlock()
    }

    /// Input `input` takes no part: it tells "none" for its first line and
    /// for the client it hands on, unless it told them already.
    func standAside(_ input: Int) {
        lock()
        if firsts[input] == nil { firsts[input] = .some(nil) }
        if handsOn[input] == nil { handsOn[input] = .some(nil) }
        wake(input - 1, .next)
        wake(input + 1, .before)
        unlock()
    }

    /// Decides what one-batch input `input` leaves unencoded, from the
    /// clients its batch names (`last` the index of its last event's),
    /// and tells the client it hands on.
    func decide(input: Int, clients: [(meeting: [UInt8], uid: [UInt8])], last: Int) -> Continuation {
        var joins = Continuation()
        let key = { (i: Int) in EventStore.ClientKey(meeting: clients[i].meeting, uid: clients[i].uid) }
        lock()
        defer {
            if handsOn[input] == nil { handsOn[input] = .some(joins.intoNext >= 0 ? key(joins.intoNext) : nil) }
            if let condition = sleeping.removeValue(forKey: input) {
                pthread_cond_destroy(condition)
                condition.deallocate()
            }
            wake(input - 1, .next)
            wake(input + 1, .before)
            unlock()
        }
        firsts[input] = firsts[input] ?? .some(clients.first.map { _ in key(0) })
        guard !clients.isEmpty, last >= 0, joinable[input] else { return joins }
        if input > 0 && joinable[input - 1] && parsed.contains(input - 1) {
            while !closed && handsOn[input - 1] == nil { sleep(input, for: .before) }
            if handsOn[input - 1] == .some(key(0)) { joins.fromBefore = 0 }
        }
        let next = input + 1
        if next < joinable.count && joinable[next] {
            while !closed && (handedOut < next || parsed.contains(next) && firsts[next] == nil) { sleep(input, for: .next) }
            if parsed.contains(next) && firsts[next] == .some(key(last)) { joins.intoNext = last }
        }
        return joins
    }

    /// The writer is done with the inputs before `input`.
    func forget(before input: Int) {
        lock()
        firsts[input - 1] = nil
        handsOn[input - 1] = nil
        parsed.remove(input - 1)
        unlock()
    }

    /// The ingest ends: nobody waits any more.
    func close() {
        lock()
        closed = true
        for condition in sleeping.values { pthread_cond_signal(condition) }
        unlock()
    }
}

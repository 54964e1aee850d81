import Foundation
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
/// files (an app rolling its log every 100 KB) is encoded once, by the
/// writer, rather than piece by piece on the parsing threads and then
/// again when the pieces are joined.
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
    private let condition = NSCondition()
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
    }

    /// The writer has handed out `input`: to a parsing thread when `parsed`.
    func handedOut(_ input: Int, parsed: Bool) {
        condition.lock()
        handedOut = max(handedOut, input)
        if parsed { self.parsed.insert(input) }
        condition.broadcast()
        condition.unlock()
    }

    /// Input `input`'s first event line names `client` (nil: none). Only
    /// the first telling counts.
    func tellFirst(_ client: EventStore.ClientKey?, of input: Int) {
        condition.lock()
        if firsts[input] == nil {
            firsts[input] = .some(client)
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Input `input` takes no part: it tells "none" for its first line and
    /// for the client it hands on, unless it told them already.
    func standAside(_ input: Int) {
        condition.lock()
        if firsts[input] == nil { firsts[input] = .some(nil) }
        if handsOn[input] == nil { handsOn[input] = .some(nil) }
        condition.broadcast()
        condition.unlock()
    }

    /// Decides what one-batch input `input` leaves unencoded, from the
    /// clients its batch names (`last` the index of its last event's),
    /// and tells the client it hands on.
    func decide(input: Int, clients: [(meeting: [UInt8], uid: [UInt8])], last: Int) -> Continuation {
        var joins = Continuation()
        let key = { (i: Int) in EventStore.ClientKey(meeting: clients[i].meeting, uid: clients[i].uid) }
        condition.lock()
        defer {
            if handsOn[input] == nil { handsOn[input] = .some(joins.intoNext >= 0 ? key(joins.intoNext) : nil) }
            condition.broadcast()
            condition.unlock()
        }
        firsts[input] = firsts[input] ?? .some(clients.first.map { _ in key(0) })
        guard !clients.isEmpty, last >= 0, joinable[input] else { return joins }
        if input > 0 && joinable[input - 1] && parsed.contains(input - 1) {
            while !closed && handsOn[input - 1] == nil { condition.wait() }
            if handsOn[input - 1] == .some(key(0)) { joins.fromBefore = 0 }
        }
        let next = input + 1
        if next < joinable.count && joinable[next] {
            while !closed && (handedOut < next || parsed.contains(next) && firsts[next] == nil) { condition.wait() }
            if parsed.contains(next) && firsts[next] == .some(key(last)) { joins.intoNext = last }
        }
        return joins
    }

    /// The writer is done with the inputs before `input`.
    func forget(before input: Int) {
        condition.lock()
        firsts[input - 1] = nil
        handsOn[input - 1] = nil
        parsed.remove(input - 1)
        condition.unlock()
    }

    /// The ingest ends: nobody waits any more.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

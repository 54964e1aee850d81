import Foundation

/// One event as the caller hands it over: fixed size, no formatting. Strings
/// are kept as the caller's `String` values (a reference, at most a retain);
/// only the writer thread turns them into bytes.
struct Record {
    var ts: Int64
    var event: RecorderEvent
    /// An enum's raw value: engine, stream kind, media, phase, device kind, step.
    var code: UInt8 = 0
    /// A second enum's raw value: the device change; on a join the
    /// platform (raw value + 1, 0 = not given).
    var code2: UInt8 = 0
    /// On a join the network type (raw value + 1, 0 = not given).
    var code3: UInt8 = 0
    var flags: UInt8 = 0
    var n0: Double = 0, n1: Double = 0, n2: Double = 0, n3: Double = 0, n4: Double = 0
    var s0: String = ""
    var s1: String = ""
    /// The speakers; on a join osVersion, sdkVersion, appVersion, device
    /// ("" = not given).
    var list: [String] = []

    static let flagA: UInt8 = 1  // timedOut, on
    static let flagB: UInt8 = 2  // byAdmin
    /// The event's one optional field is present (in `s0` or `s1`, per event).
    static let hasOptional: UInt8 = 0x80

    // No init written out: the memberwise one sets the fields an event has
    // and leaves the others at their defaults.
}

/// The bounded hand-over between callers and the writer: two fixed arrays of
/// records behind one lock. Callers append to the active one; the writer
/// swaps it for the empty spare and formats outside the lock, so a caller
/// never waits for formatting or I/O, only for a swap or another append.
/// When the active array is full the record is dropped and counted.
final class RecordBuffer: @unchecked Sendable {
    let capacity: Int
    private var active: UnsafeMutablePointer<Record>
    private var spare: UnsafeMutablePointer<Record>
    private var count = 0
    private var droppedSinceTake = 0
    private var totalDropped = 0
    private var totalAccepted = 0
    private var closed = false
    private var suspended = false
    private let condition = NSCondition()

    init(capacity: Int) {
        precondition(capacity >= 2, "a recorder buffer holds at least 2 events")
        self.capacity = capacity
        active = .allocate(capacity: capacity)
        spare = .allocate(capacity: capacity)
        // Touch every page now: a first-touch page fault inside a caller's
        // append would cost microseconds.
        memset(active, 0, capacity * MemoryLayout<Record>.stride)
        memset(spare, 0, capacity * MemoryLayout<Record>.stride)
    }

    deinit {
        active.deinitialize(count: count)
        active.deallocate()
        spare.deallocate()
    }

    /// Appends or drops; never blocks beyond the lock. Wakes the writer
    /// once, when the buffer reaches half full, so that a steady trickle
    /// costs no wake-up per call (the writer also wakes on a timer).
    @inline(__always)
    func append(_ record: Record) {
        condition.lock()
        if closed {
            condition.unlock()
            return
        }
        guard count < capacity else {
            droppedSinceTake &+= 1
            totalDropped &+= 1
            condition.unlock()
            return
        }
        (active + count).initialize(to: record)
        count &+= 1
        totalAccepted &+= 1
        let wake = count == capacity / 2
        condition.unlock()
        if wake { condition.signal() }
    }

    /// What the writer took besides the records: drops since the last
    /// take, and whether the recorder is closed.
    struct Taken {
        var dropped: Int
        var closed: Bool
    }

    /// Whether a take's records are lent out (a debug check: one writer).
    private var lending = false

    /// Waits up to `interval` seconds (less when the buffer fills or the
    /// recorder closes), then takes everything buffered and lends it to
    /// `body`, outside the lock (callers append to the other array
    /// meanwhile). The records are valid in `body` only: they are
    /// deinitialized when it returns, on the caller's thread, so the
    /// callers' strings are freed on the writer's.
    func take(waitingUpTo interval: TimeInterval, _ body: (UnsafeBufferPointer<Record>) -> Void) -> Taken {
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: interval)
        while !closed {
            if suspended {
                condition.wait()
                continue
            }
            if count >= capacity / 2 || !condition.wait(until: deadline) { break }
        }
        assert(!lending, "two writers take from one buffer")
        lending = true
        let (records, taken) = (active, count)
        let result = Taken(dropped: droppedSinceTake, closed: closed)
        swap(&active, &spare)
        count = 0
        droppedSinceTake = 0
        condition.unlock()
        // `records` is now the spare: no caller writes it until the next
        // take swaps it back, which cannot start before this one returns.
        body(UnsafeBufferPointer(start: records, count: taken))
        records.deinitialize(count: taken)
        condition.lock()
        lending = false
        condition.unlock()
        return result
    }

    /// Refuses further records and wakes the writer for its last round.
    func close() {
        condition.lock()
        closed = true
        suspended = false
        condition.unlock()
        condition.signal()
    }

    /// Events lost after the writer's last take because of a failed write:
    /// reported in the next `recorder_dropped` line like buffer drops.
    func addDropped(_ n: Int) {
        condition.lock()
        droppedSinceTake += n
        totalDropped += n
        condition.unlock()
    }

    /// Tests only: hold the writer so the buffer can be filled on purpose.
    func setSuspended(_ on: Bool) {
        condition.lock()
        suspended = on && !closed
        condition.unlock()
        condition.signal()
    }

    var counts: (accepted: Int, dropped: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (totalAccepted, totalDropped)
    }
}

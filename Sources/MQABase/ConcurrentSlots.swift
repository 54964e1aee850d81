import Foundation

/// One result slot per index, filled from many threads at once (each index
/// by one worker) and read once they have all finished. Unchecked Sendable:
/// the lock orders every access.
public final class ConcurrentSlots<Value>: @unchecked Sendable {
    private var slots: [Value?]
    private let lock = NSLock()

    public init(count: Int) { slots = Array(repeating: nil, count: count) }

    public func set(_ i: Int, _ value: Value) {
        lock.lock()
        slots[i] = value
        lock.unlock()
    }

    /// The value of slot `i`; nil when no worker set it.
    public func get(_ i: Int) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        return slots[i]
    }
}

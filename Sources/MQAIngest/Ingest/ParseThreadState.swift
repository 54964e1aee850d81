import Foundation
import MQAStore

/// What each parsing thread keeps from one input to the next: its chunk
/// codec (its zstd contexts are worth keeping) and the sizes of its last
/// input.
final class ParseThreadState {
    var codec = ChunkCodec()
    /// The items of the thread's last one-batch input: the next input's
    /// batch starts with room for as many (logs come as many files of
    /// about one size). Grown from nothing, a batch's arrays were
    /// reallocated about 80 times an input.
    var lastBatch = BatchSizes()

    static var current: ParseThreadState {
        let slots = Thread.current.threadDictionary
        if let held = slots["mqa.parse-thread-state"] as? ParseThreadState { return held }
        let made = ParseThreadState()
        slots["mqa.parse-thread-state"] = made
        return made
    }
}


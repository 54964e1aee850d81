import MQABase
import MQAModel

/// Words of the event-log spec (Docs/event-log.md, format 1.1) that every
/// event chunk may name without storing them: payload keys, the closed
/// value lists, and the spec's example values of open ones. On the
/// benchmark corpus they saved 0.3 bytes an event (each chunk stored its
/// keys again).
///
/// Frozen: stored chunks of `ChunkEncoding.eventsColumnar` refer to these by
/// position. A word missing here costs a few bytes per chunk, nothing else;
/// changing or reordering the list needs a new encoding.
enum EventVocabulary {
    static let words: [String] = [
        // keys, in the order of the spec's kinds
        "engine", "title", "reason", "error", "tier", "speakers", "publisher", "track", "kind", "timedOut",
        "target", "media", "on", "byAdmin", "opUid", "previousTitle", "route", "phase", "change", "device", "step",
        // closed lists
        "sfu", "cdn", "camera", "screen", "mic", "speaker", "added", "removed", "default", "began", "ended",
        "request", "cancel", "confirmOpen", "rejectOpen",
        // examples of open values
        "excellent", "good", "fair", "poor", "bad", "network", "kicked", "meeting_ended",
        "receiver", "bluetooth", "headphones", "newDeviceAvailable", "oldDeviceUnavailable", "categoryChange", "override",
    ]

    /// The words interned in order, word i at index i: every chunk's string
    /// dictionary starts as a copy (the encoder) or from its flat storage
    /// (the decoder), built once.
    static let interner: ByteInterner = {
        var interner = ByteInterner()
        for word in words { _ = interner.intern(Array(word.utf8)) }
        // A repeated word would shift every index after it.
        precondition(interner.count == words.count, "EventVocabulary.words holds a word twice")
        return interner
    }()
}

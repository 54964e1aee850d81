import Foundation
import MQABase
import MQAModel

/// What a dump's standard stats say about one counted connection beyond
/// the quality reports (Docs/import.md, "Context from standard stats").
public struct ConnectionContext: Sendable, Equatable {
    public var file: String
    public var connection: String
    /// The participant the connection belongs to (set by the importer).
    public var meeting: String?
    public var uid: String?
    /// The selected candidate pairs' local candidates as `type/protocol`,
    /// in the order they were used: `host/udp`, `srflx/udp`, `relay/tls`
    /// (a TURN relay reached over TLS: the relay's own transport).
    public var paths: [String] = []
    /// Time outgoing video spent limited, by `qualityLimitationReason`
    /// (`cpu`, `bandwidth`, `other`), ms.
    public var limitedMs: [String: Int64] = [:]
    /// Concealed audio samples over samples received, 0–1; nil without
    /// audio counters.
    public var concealment: Double?
    /// The names the connection's sent media goes by in the far end's
    /// dump: stream ids of its local description's sending sections, as a
    /// receiver names their publisher, and `remote-<ssrc>` for its sent
    /// video; Jitsi's endpoint id. A store that holds both dumps of a call
    /// reads a publisher of one of these names as this participant.
    public var knownAs: [String] = []
    /// The sender's own id of each video track received, by the id this
    /// dump gives it (browsers make up their own): two viewers' dumps of
    /// one camera name the same sender's track.
    public var senderTracks: [String: String] = [:]
    /// Another name of each received track's publisher, by the name this
    /// dump gave it: for `remote-<ssrc>` (a track whose stream the dump did
    /// not log: Firefox) the stream its received description's msid
    /// names, for a stream id the `remote-<ssrc>` of the SSRC it came on.
    /// A meeting is read with the first in place of `remote-<ssrc>`, and
    /// with the second where the sender's dump knows it (an SFU renamed
    /// the sender's stream: Jitsi's `…-1`).
    public var senderPublishers: [String: String] = [:]
    /// Whom it received from, when, and the runs of lost packets: how a
    /// mesh call tells a sender's uplink from the viewer's network
    /// (`ReceivedLoss`). Nil for a connection that received no RTP.
    public var received: ReceivedLoss?

    public init(file: String, connection: String) {
        self.file = file
        self.connection = connection
    }

    public var isEmpty: Bool {
        !hasFigures && knownAs.isEmpty && senderTracks.isEmpty && senderPublishers.isEmpty && received == nil
    }

    /// Whether it says something a report shows (a path, a limit, audio
    /// concealment), not only the names its media goes by.
    public var hasFigures: Bool { !paths.isEmpty || !limitedMs.isEmpty || concealment != nil }

    /// The `qualityLimitationReason`s counted in `limitedMs`, by rank: the
    /// encoder's CPU limit first, then the network's, then the rest.
    public static let limitReasons = ["cpu", "bandwidth", "other"]

    /// Between the paths of `paths` in the store's one text column.
    static let pathSeparator = " > "
}

import Foundation
import MQABase
import MQAModel

/// What an ingest did, in the spec's terms:
/// `lines = events + rejected + duplicates + ignored`.
public struct IngestSummary: Equatable, Sendable {
    public var files = 0
    public var skippedFiles = 0
    /// Non-blank lines read.
    public var lines = 0
    /// Events stored, quality reports included.
    public var events = 0
    public var reports = 0
    public var rejected = 0
    public var duplicates = 0
    public var ignored = 0
    /// Of the ignored lines, `mqa_connection_context` lines (an export's
    /// context of imported connections) kept as that context: an event
    /// name outside the log format, so ignored in its counts, yet stored.
    public var contextLines = 0
    /// Per content format (`events`, `rtcstats`, `webrtc-internals`): files,
    /// and for dumps the connections, samples and events they converted to.
    public var formats: [String: FormatCounts] = [:]
    /// Dump connections that gave no events, with the reason.
    public var skippedConnections: [SkippedConnection] = []
    /// What standard stats add about the dumps' counted connections (the
    /// network path, why outgoing video was held back, concealed audio):
    /// context beside the normative figures, never part of them.
    public var connectionContexts: [ConnectionContext] = []

    public init() {}

    /// Counts of one input format.
    public struct FormatCounts: Equatable, Sendable {
        public var files = 0
        public var connections = 0
        public var samples = 0
        /// Events the conversion produced (before dedupe; `events` above
        /// counts those stored).
        public var events = 0

        public init(files: Int = 0, connections: Int = 0, samples: Int = 0, events: Int = 0) {
            self.files = files
            self.connections = connections
            self.samples = samples
            self.events = events
        }

        package static func + (a: FormatCounts, b: FormatCounts) -> FormatCounts {
            FormatCounts(files: a.files + b.files, connections: a.connections + b.connections,
                         samples: a.samples + b.samples, events: a.events + b.events)
        }
    }

    package static func + (a: IngestSummary, b: IngestSummary) -> IngestSummary {
        var s = a
        s.files += b.files
        s.skippedFiles += b.skippedFiles
        s.lines += b.lines
        s.events += b.events
        s.reports += b.reports
        s.rejected += b.rejected
        s.duplicates += b.duplicates
        s.ignored += b.ignored
        s.contextLines += b.contextLines
        s.formats.merge(b.formats) { $0 + $1 }
        s.skippedConnections += b.skippedConnections
        s.connectionContexts += b.connectionContexts
        return s
    }
}

/// One rejected line, as reported on stderr (`FILE:LINE: reason`).
public struct RejectedLine: Sendable {
    public var file: String
    public var line: Int
    public var reason: String

    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }
}

/// One peer connection that produced none, and why.
public struct SkippedConnection: Sendable, Equatable {
    public var file: String
    public var connection: String
    public var reason: String

    public init(file: String, connection: String, reason: String) {
        self.file = file
        self.connection = connection
        self.reason = reason
    }
}

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

/// The content formats `mqa ingest` reads.
public enum InputFormat: String, CaseIterable, Sendable {
    /// The SDK's event log (NDJSON), streamed line by line.
    case events
    /// An rtcstats dump: one `[method, pcId, value, ts]` array per line.
    case rtcstats
    /// A chrome://webrtc-internals dump: one object with `PeerConnections`.
    case webrtcInternals = "webrtc-internals"

    public var isDump: Bool { self != .events }
}

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

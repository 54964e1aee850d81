/// What one imported connection received, and when it lost packets or
/// measured a long round trip: the evidence that tells on a mesh call
/// whose network (or device) it was (Docs/incidents.md, "Mesh calls: whose
/// loss").
///
/// A participant's quality feed follows one connection at a time (the one
/// carrying the most media), so a viewer whose feed followed the
/// connection to a sender with a lossy uplink reports that loss as its
/// own. Its other connections, and the other viewers' connections from the
/// same sender, tell the two apart.
public struct ReceivedLoss: Sendable, Equatable {
    /// Who sent what the connection received: the publishers of its video
    /// tracks, as the dump names them until the meeting is read
    /// (`MeetingLog.resolvingSenders`), then as participants where known.
    public var peers: [String]
    /// Runs of samples that received RTP, `[first, last]` sample times
    /// (ms), in time order, gaps up to `bridgedGapMs` bridged: a
    /// connection that stopped receiving (an idle bridge connection while
    /// P2P carries the call, an outage) is not clean over its gap.
    public var spans: [Span]
    /// Runs of received samples whose loss was above `lossyPct`, in time
    /// order, gaps up to `bridgedGapMs` bridged; peaks in %.
    public var lossRuns: [Run]
    /// Runs of received samples whose RTT was above `slowRttMs`, the same
    /// way; peaks in ms. A round trip is the connection's: both ends'
    /// networks and both devices (one that answers late) are in it.
    public var rttRuns: [Run]
    /// The connection's network paths (`type/protocol` of the selected
    /// pair's local candidate, as the connection's context lists them),
    /// where they were read with it; not written with the runs: the
    /// context line holds them.
    public var paths: [String]

    public struct Span: Sendable, Equatable {
        public var start: Int64
        public var end: Int64

        public init(start: Int64, end: Int64) {
            self.start = start
            self.end = end
        }
    }

    /// A run covers each of its samples' intervals: from the received
    /// sample before the first (the first sample itself when the one
    /// before received nothing) to the last.
    public struct Run: Sendable, Equatable {
        public var start: Int64
        public var end: Int64
        /// The largest figure of the run: loss in % (two decimals, as the
        /// reports), or RTT in whole ms.
        public var peak: Double

        public init(start: Int64, end: Int64, peak: Double) {
            self.start = start
            self.end = end
            self.peak = peak
        }
    }

    /// Received loss above this is a lossy sample: the issue line of
    /// `IssueThresholds.lossP95Pct`, which makes a viewer's loss spike.
    public static let lossyPct = 5.0

    /// RTT above this is a slow sample: the issue line of
    /// `IssueThresholds.rttP95Ms`, which makes a participant's RTT spike.
    public static let slowRttMs = 400.0

    /// Spans, and runs, this close are one: a few samples without packets
    /// are not a connection that stopped, and a call of hours keeps its
    /// line (one per connection in an export) far under the 1 MiB a line
    /// may have.
    public static let bridgedGapMs: Int64 = 5000

    public init(peers: [String], spans: [Span], lossRuns: [Run] = [], rttRuns: [Run] = [], paths: [String] = []) {
        self.peers = peers
        self.spans = spans
        self.lossRuns = lossRuns
        self.rttRuns = rttRuns
        self.paths = paths
    }

    /// Every path known, and each through a host candidate: a peer reached
    /// directly, on the same network, with no NAT or relay between.
    public var isHostOnly: Bool {
        !paths.isEmpty && paths.allSatisfy { $0.hasPrefix("host/") }
    }

    /// A path known that is not a host candidate's: reached through NAT or a relay.
    public var isNatted: Bool {
        paths.contains { !$0.hasPrefix("host/") }
    }

    /// Whether it received RTP in some sample over `[start, end]`.
    public func received(during start: Int64, _ end: Int64) -> Bool {
        spans.contains { $0.start <= end && $0.end >= start }
    }

    /// The largest loss (`.loss`) or RTT (`.rtt`) of the runs that meet
    /// `[start, end]`; nil when none does.
    public func peak(_ figure: Figure, during start: Int64, _ end: Int64) -> Double? {
        (figure == .loss ? lossRuns : rttRuns).filter { $0.start <= end && $0.end >= start }.map(\.peak).max()
    }

    /// Which runs: of loss, or of RTT.
    public enum Figure: Sendable {
        case loss, rtt
    }
}

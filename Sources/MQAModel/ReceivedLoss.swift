/// What one imported connection received, and when it lost packets: the
/// evidence that tells on a mesh call whose network lost them
/// (Docs/incidents.md, "Mesh calls: whose loss").
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
    /// Runs of samples whose received loss was above `lossyPct`, in time
    /// order, gaps up to `bridgedGapMs` bridged.
    public var runs: [Run]

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
        /// The largest loss of the run, % (two decimals, as the reports).
        public var peakPct: Double

        public init(start: Int64, end: Int64, peakPct: Double) {
            self.start = start
            self.end = end
            self.peakPct = peakPct
        }
    }

    /// Received loss above this is a lossy sample: the issue line of
    /// `IssueThresholds.lossP95Pct`, which makes a viewer's loss spike.
    public static let lossyPct = 5.0

    /// Spans, and runs, this close are one: a few samples without packets
    /// are not a connection that stopped, and a call of hours keeps its
    /// line (one per connection in an export) far under the 1 MiB a line
    /// may have.
    public static let bridgedGapMs: Int64 = 5000

    public init(peers: [String], spans: [Span], runs: [Run] = []) {
        self.peers = peers
        self.spans = spans
        self.runs = runs
    }

    /// Whether it received RTP in some sample over `[start, end]`.
    public func received(during start: Int64, _ end: Int64) -> Bool {
        spans.contains { $0.start <= end && $0.end >= start }
    }

    /// The largest loss of the runs that meet `[start, end]`; nil when none does.
    public func peak(during start: Int64, _ end: Int64) -> Double? {
        runs.filter { $0.start <= end && $0.end >= start }.map(\.peakPct).max()
    }
}

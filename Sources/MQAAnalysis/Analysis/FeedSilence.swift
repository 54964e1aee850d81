import MQABase
import MQAModel

/// A stretch of a connection with no quality report (the app in the
/// background, or suspended): the participant's stream status then says
/// nothing of what it saw (`SharedStalls`).
public struct FeedSilence: Sendable, Equatable {
    /// Three report intervals (~2 s each) without a report.
    public static let longerThanMs: Int64 = 6000
    public var start: Int64
    public var end: Int64

    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = end
    }
}

extension MeetingAnalysis {
    /// Each participant's feed silences, by uid (only those with one).
    /// Swift strings key it, and they compare canonically: two uids that
    /// differ only in Unicode normalization (two clients for the store)
    /// share one entry, their silences together, rather than trap.
    public var silences: [String: [FeedSilence]] {
        Dictionary(participants.filter { !$0.silences.isEmpty }.map { ($0.uid, $0.silences) }, uniquingKeysWith: +)
    }
}

/// Finds one client's feed silences as its reports go by, in time order
/// (`ClientAnalysis`): the gaps between consecutive reports of a
/// connection, and each connection's head and tail without a report.
struct FeedSilenceFinder {
    private var gaps: [FeedSilence] = []
    /// Pairs of consecutive reports of one connection.
    private var pairs = 0
    /// Closed connections' first and last report, by connection index.
    private var bounds: [Int: (first: Int64, last: Int64)] = [:]
    private var open: (connection: Int, first: Int64, last: Int64)?

    /// A report at `ts` held by connection `connection`.
    mutating func report(ts: Int64, connection: Int) {
        if let o = open, o.connection == connection {
            if ts - o.last > FeedSilence.longerThanMs { gaps.append(FeedSilence(start: o.last, end: ts)) }
            pairs += 1
            open!.last = ts
        } else {
            if let o = open { bounds[o.connection] = (o.first, o.last) }
            open = (connection, ts, ts)
        }
    }

    /// The silences over `spans` (the client's connections), in start
    /// order; none when pauses are the rule (more than half of the gaps
    /// between reports: an SDK on a slower interval), or with no two
    /// reports in one connection.
    func silences(spans: [ConnectionSpan]) -> [FeedSilence] {
        var bounds = self.bounds
        if let o = open { bounds[o.connection] = (o.first, o.last) }
        // No feed to fall silent, or none whose interval shows: a client
        // that never reported, or reported once a connection.
        if bounds.isEmpty || pairs == 0 { return [] }
        var out = gaps
        for (i, span) in spans.enumerated() {
            let b = bounds[i]
            if (b?.first ?? span.end) - span.start > FeedSilence.longerThanMs {
                out.append(FeedSilence(start: span.start, end: b?.first ?? span.end))
            }
            if let b, span.end - b.last > FeedSilence.longerThanMs { out.append(FeedSilence(start: b.last, end: span.end)) }
        }
        // The rule counts gaps between reports only: a connection's head
        // and tail say nothing of the feed's interval.
        if gaps.count * 2 > pairs { return [] }
        return out.sorted { $0.start < $1.start }
    }
}

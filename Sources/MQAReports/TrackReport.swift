import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// One published track as each of its subscribers received it
/// (`mqa report track TRACK --meeting ID`), with an attribution of its
/// stalls to the sender or to the subscribers.
///
/// **Alignment rule** (`SharedStalls`, the incidents' rule too). A stall of
/// one subscriber is *shared* when every other subscriber rendering the
/// track at its start (at least one) has a stall that overlaps it once it
/// is widened by `alignmentToleranceMs` (2 s) on each side:
/// `other.start < stall.end + 2 s` and `other.end > stall.start − 2 s`. The
/// tolerance absorbs client clock skew and the SDK's detection delay.
///
/// **Verdict.** No stalls: `noStalls`. Fewer than two distinct subscribers:
/// `undetermined` (there is nobody to compare with). Otherwise
/// `senderSide` when more than half of all stalls are shared (a frozen
/// camera or a sender uplink problem freezes the track for everyone), else
/// `subscriberSide` (each stall belongs to one subscriber's own network or
/// decoder).
public struct TrackReport: Sendable, RenderedReport {
    public static let alignmentToleranceMs: Int64 = SharedStalls.toleranceMs

    public enum Verdict: String, Sendable {
        case senderSide = "sender-side"
        case subscriberSide = "subscriber-side"
        case noStalls = "no stalls"
        case undetermined = "undetermined"

        /// One sentence for the reader.
        public var explanation: String {
            switch self {
            case .senderSide: "most stalls line up across subscribers: a sender-side problem (camera, encoder or the publisher's uplink)"
            case .subscriberSide: "most stalls were seen by one subscriber alone, each on their own network or device"
            case .noStalls: "no subscriber saw a stall"
            case .undetermined: "only one subscriber: stalls cannot be compared across subscribers"
            }
        }
    }

    /// One subscription of the track, with, per stall, the other subscribers
    /// whose stalls line up with it (empty: this subscriber's own stall).
    public struct Row: Sendable {
        public var subscription: Subscription
        /// Per stall: whether other subscribers' stalls line up with it.
        public var shared: [Bool]
        /// Per stall: whether another subscriber was watching at its start
        /// (`SharedStalls.isComparable`); a stall nobody else watched says
        /// nothing of either side.
        public var compared: [Bool] = []
        /// Names the subscribers of a shared stall when asked: held for
        /// every stall, a 2,000-viewer webinar's names took 190 MB.
        let sharing: SharedStalls

        /// Per stall, the other subscribers whose stalls line up with it
        /// (empty: this subscriber's own stall); made on each call.
        public var sharedWith: [[String]] { subscription.stalls.indices.map(sharedWith(stall:)) }

        /// The other subscribers whose stalls line up with stall `k`.
        public func sharedWith(stall k: Int) -> [String] {
            shared[k] ? sharing.others(overlapping: subscription.stalls[k], of: subscription) : []
        }

        /// The first `limit` of `sharedWith(stall: k)`, and how many it
        /// names in all.
        public func sharedWith(stall k: Int, first limit: Int) -> (names: [String], count: Int) {
            shared[k] ? sharing.others(overlapping: subscription.stalls[k], of: subscription, first: limit) : ([], 0)
        }

        public var sharedStallCount: Int { shared.count { $0 } }

        /// `own network`, `sender`, `mixed`, `no other viewer` (no stall of
        /// it could be compared), or `—` without stalls.
        public var attribution: String {
            let shared = sharedStallCount
            if subscription.stalls.isEmpty { return "—" }
            if !compared.isEmpty, !compared.contains(true) { return "no other viewer" }
            if shared == 0 { return "own network" }
            return shared == subscription.stalls.count ? "sender" : "mixed"
        }
    }

    public var header: MeetingHeader
    /// The tier config of the meeting report it came from (the stalls'
    /// tiers are its): named when it is not the defaults.
    public var config = TierConfig()
    public var track: String
    /// The publishers of subscriptions named `track`, sorted (normally one).
    public var publishers: [String]
    /// In the meeting's subscription order (subscriber uid, then time).
    public var rows: [Row]
    public var verdict: Verdict
    /// How instants are written in md and html (the meeting report's).
    public var display = TimeDisplay()

    /// The JSON's `schema`.
    public static let schema = "mqa.track/1"

    /// Builds the report of `track` from a meeting report; throws
    /// `ReportError.noTrack` when no client subscribed to it.
    public init(meeting report: MeetingReport, track: String) throws {
        try self.init(header: report.header, analysis: report.analysis, display: report.display, track: track)
    }

    /// Builds the report of `track` from a meeting's header and analysis
    /// (which needs no tier timelines), its times shown as `display`
    /// shows them (clocks dated when the meeting spans days, as its
    /// report's); throws `ReportError.noTrack` when no client subscribed
    /// to it.
    public init(header: MeetingHeader, analysis: MeetingAnalysis, display: TimeDisplay, track: String) throws {
        let subs = analysis.subscriptions.filter { $0.track == track }
        guard !subs.isEmpty else { throw ReportError.noTrack(track: track, meeting: header.meeting) }
        self.init(header: header, track: track, subscriptions: subs, silences: analysis.silences)
        self.display = display
        if let start = header.start { self.display.date(forSpan: start, header.end ?? start) }
        config = analysis.config
    }

    /// The report of every track of a meeting, by track id: the
    /// subscriptions are grouped once (a meeting may have thousands of
    /// tracks and 100,000 subscribers).
    public static func all(meeting report: MeetingReport) -> [String: TrackReport] {
        let silences = report.analysis.silences
        return Dictionary(grouping: report.analysis.subscriptions, by: \.track)
            .mapValues {
                var t = TrackReport(header: report.header, track: $0[0].track, subscriptions: $0, silences: silences)
                t.display = report.display
                t.config = report.analysis.config
                return t
            }
    }

    /// Each track's verdict, as `all(meeting:)` has it, without the rows
    /// (a meeting page shows only the verdicts): one track's rule at a
    /// time, so a 20,000-viewer webinar's tracks are never all held.
    public static func verdicts(meeting report: MeetingReport) -> [String: Verdict] {
        let subscriptions = report.analysis.subscriptions, silences = report.analysis.silences
        var out: [String: Verdict] = [:]
        for (track, positions) in Dictionary(grouping: subscriptions.indices, by: { subscriptions[$0].track }) {
            let subs = positions.map { subscriptions[$0] }
            let sharing = SharedStalls(subs, silences: silences, toleranceMs: TrackReport.alignmentToleranceMs)
            var total = 0, shared = 0
            for s in subs {
                total += s.stalls.count
                shared += TrackReport.shared(s, sharing).count { $0 }
            }
            out[track] = verdict(stalls: total, shared: shared, subscribers: Set(subs.map(\.subscriber)).count)
        }
        return out
    }

    /// Per stall of `s`: shared, when the rule says so and someone is
    /// named (as the names were held before, `sharedStallCount` counts
    /// those). The rows and `verdicts` both count by it.
    static func shared(_ s: Subscription, _ sharing: SharedStalls) -> [Bool] {
        s.stalls.map { sharing.isShared($0, of: s) && sharing.hasOthers(overlapping: $0, of: s) }
    }

    /// Sender-side when more than half of the stalls are shared; nothing to
    /// say without stalls, or with one subscriber.
    static func verdict(stalls total: Int, shared: Int, subscribers: Int) -> Verdict {
        if total == 0 { return .noStalls }
        if subscribers < 2 { return .undetermined }
        return shared * 2 > total ? .senderSide : .subscriberSide
    }

    /// `subs`: the track's subscriptions in the meeting's order, not empty.
    private init(header: MeetingHeader, track: String, subscriptions subs: [Subscription], silences: [String: [FeedSilence]]) {
        self.header = header
        self.track = track
        publishers = Array(Set(subs.map(\.publisher))).sorted()
        let sharing = SharedStalls(subs, silences: silences, toleranceMs: TrackReport.alignmentToleranceMs)
        // The incidents' rule too: shared only when everyone watching stalled.
        rows = subs.map { s in
            Row(subscription: s, shared: TrackReport.shared(s, sharing),
                compared: s.stalls.map { sharing.isComparable($0, of: s) }, sharing: sharing)
        }
        verdict = TrackReport.verdict(stalls: rows.reduce(0) { $0 + $1.subscription.stallCount },
                                      shared: rows.reduce(0) { $0 + $1.sharedStallCount }, subscribers: Set(subs.map(\.subscriber)).count)
    }

    public var stallCount: Int { rows.reduce(0) { $0 + $1.subscription.stallCount } }
    public var sharedStallCount: Int { rows.reduce(0) { $0 + $1.sharedStallCount } }

    var origin: Int64 { header.start ?? 0 }

    /// The rule, in words, as every format states it.
    static let ruleText = "A stall is shared when every other subscriber rendering the track at its start (at least one; "
        + "one whose quality reports had stopped counts neither way) "
        + "had a stall overlapping it within ±2 s; sender-side when more than half of all stalls are shared, else subscriber-side."
}

/// Which other subscribers of the same publisher's track had a stall
/// overlapping a given one within the tolerance. The stalls of each
/// publisher sorted by start: a stall is compared with those that can reach
/// it (starting at most the longest stall before it), not with every
/// subscriber's every stall.

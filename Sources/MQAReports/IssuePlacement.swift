import MQABase
import MQAModel
import MQAAnalysis

/// Where each issue of a meeting report is shown: under the incident that
/// shows the same trouble, in the "no incident" list, or in the tier
/// tuning section. Issues and incidents describe the same problems (a
/// participant's p95 loss and the loss spikes of their incidents), so the
/// report lists each issue once, under its incident, instead of two lists.
///
/// The rule, for an issue of participant U (for a track issue: U watching
/// track T of publisher P):
///
/// - `stalls_under_good_tier` is a tuning diagnostic (the tier did not warn
///   of a stall), not a problem of the call: the tuning section.
/// - `no_quality_data` concerns the meeting: no incident.
/// - otherwise the candidates are the incidents that show the same kind of
///   trouble: U's own incidents with a loss spike (`high_packet_loss`), an
///   RTT spike (`high_latency`), a jitter rise (`high_jitter`), a poor/bad
///   tier, loss or RTT spike (`low_mos`), a disconnect (`reconnects`,
///   `abnormal_disconnect`); for `video_stalls`, U's incidents that stalled
///   T and T's own (publisher-side) incidents that U stalled in; for
///   `never_rendered` and `slow_first_frame`, U's or T's incidents whose
///   window holds the issue's instant (the subscription, the first frame).
/// - of the candidates, the issue goes under the one containing its instant
///   when it has one (the first abnormal disconnect, the first reconnect),
///   else under the one with the most impact (the verdict's order); no
///   candidate: no incident.
struct IssuePlacement: Sendable {
    enum Place: Sendable, Equatable {
        /// Under incident number N (1-based, start order: the anchor `i-N`).
        case incident(Int)
        /// In the "no incident" list.
        case noIncident
        /// In the tier tuning section, not among the call's problems.
        case tuning
    }

    /// One per issue, in the meeting's issue order.
    let places: [Place]
    /// The meeting's issues (the array itself, not a copy); the lists
    /// below hold positions in it: a 20,000-viewer meeting's 52,000
    /// issues were 12 MB copied into them.
    private let issues: [Issue]
    /// The issues under each incident number, in the meeting's issue order.
    private let byIncident: PositionGroups<Int>
    private let unplacedPositions: [Int32]
    private let tuningPositions: [Int32]

    /// `ranked` is the incidents most impact first, each with its number.
    init<R: RandomAccessCollection<(number: Int, incident: Incident)>>(issues: [Issue], ranked: R) where R.Index == Int {
        let candidates = Candidates(ranked)
        let places = issues.map { IssuePlacement.place($0, ranked, candidates: candidates) }
        var unplaced: [Int32] = [], tuning: [Int32] = []
        for (k, place) in places.enumerated() {
            switch place {
            case .incident: break
            case .noIncident: unplaced.append(Int32(k))
            case .tuning: tuning.append(Int32(k))
            }
        }
        self.places = places
        self.issues = issues
        self.byIncident = PositionGroups(count: places.count) { k, add in
            if case .incident(let n) = places[k] { add(n) }
        }
        self.unplacedPositions = unplaced
        self.tuningPositions = tuning
    }

    /// The issues under incident `number`, in the meeting's issue order.
    func issues(under number: Int) -> [Issue] { byIncident[number].map { issues[Int($0)] } }

    /// The issues in no incident, in the meeting's issue order.
    var unplaced: [Issue] { unplacedPositions.map { issues[Int($0)] } }
    var unplacedCount: Int { unplacedPositions.count }
    var hasUnplaced: Bool { !unplacedPositions.isEmpty }

    /// The tuning diagnostics, in the meeting's issue order.
    var tuning: [Issue] { tuningPositions.map { issues[Int($0)] } }
    var tuningCount: Int { tuningPositions.count }

    /// How many issues are among the call's problems (not tuning diagnostics).
    var problemCount: Int { places.count - tuningPositions.count }

    /// The ranked incidents (by index) that `matches` can accept for an
    /// issue: those of its uid, of its track, and those whose late-loss
    /// viewers name its uid. Testing every incident for every issue took
    /// a 20,000-person meeting's report 186 s.
    struct Candidates {
        private var byUid = PositionGroups<String>()
        private var byTrack = PositionGroups<String>()
        private var byLateViewer = PositionGroups<String>()

        init<R: RandomAccessCollection<(number: Int, incident: Incident)>>(_ ranked: R) where R.Index == Int {
            byUid = PositionGroups(count: ranked.count) { k, add in add(ranked[k].incident.uid) }
            byTrack = PositionGroups(count: ranked.count) { k, add in ranked[k].incident.track.map(add) }
            // Sorted and each once (`LateLoss.evidence`).
            byLateViewer = PositionGroups(count: ranked.count) { k, add in ranked[k].incident.evidence.lateLossViewers.forEach(add) }
        }

        /// In ranked order, each once.
        func indices(for issue: Issue, uid: String) -> [Int] {
            var out = byUid[uid].map(Int.init)
            if let t = issue.track { out += byTrack[t].map(Int.init) }
            out += byLateViewer[uid].map(Int.init)
            return Array(Set(out)).sorted()
        }
    }

    static func place<R: RandomAccessCollection<(number: Int, incident: Incident)>>(
        _ issue: Issue, _ ranked: R, candidates: Candidates? = nil
    ) -> Place where R.Index == Int {
        switch issue.code {
        case .stallsUnderGoodTier: return .tuning
        case .noQualityData: return .noIncident
        default: break
        }
        guard let uid = issue.uid else { return .noIncident }
        // The first candidate holding the issue's instant, else the first
        // candidate, in one pass over the ranked incidents.
        var first: Int?
        for k in candidates?.indices(for: issue, uid: uid) ?? Array(ranked.indices) where matches(issue, uid: uid, ranked[k].incident) {
            guard let ts = issue.ts else { return .incident(ranked[k].number) }
            let i = ranked[k].incident
            if i.startTs <= ts && ts <= i.endTs { return .incident(ranked[k].number) }
            if first == nil { first = ranked[k].number }
        }
        return first.map { .incident($0) } ?? .noIncident
    }

    /// Whether `incident` shows the trouble `issue` reports.
    static func matches(_ issue: Issue, uid: String, _ i: Incident) -> Bool {
        let own = i.track == nil && i.uid == uid
        func holds(_ ts: Int64?) -> Bool { ts.map { i.startTs <= $0 && $0 <= i.endTs } ?? false }
        // Both lists are sorted, and a track's incident may name 20,000.
        func lateLoss() -> Bool { i.evidence.lateLossViewers.sortedContains(uid) }
        switch issue.code {
        // Loss a sender's outage left in U's reports (`lateLossViewers`)
        // goes under the incident that holds that outage's stall.
        case .highPacketLoss: return (own && i.has(.loss)) || lateLoss()
        case .highLatency: return own && i.has(.rtt)
        case .highJitter: return own && (i.has(.jitter) || i.evidence.maxJitterMs != nil)
        case .lowMOS:
            return (own && (i.has(.lowTier) || i.has(.loss) || i.has(.rtt))) || lateLoss()
        // Each under an incident that shows it: a return for `reconnects`,
        // an errored drop for `abnormal_disconnect` (by impact alone, the
        // return went under a drop that "did not come back").
        case .reconnects: return own && i.has(.disconnect) && i.evidence.awayMs != nil
        case .abnormalDisconnect: return own && i.has(.disconnect) && i.evidence.abnormalDisconnects > 0
        case .videoStalls:
            guard let track = issue.track, i.has(.stall) else { return false }
            return (own && i.evidence.tracks.contains(track))
                || (i.track == track && i.uid == issue.publisher && i.evidence.subscribers.sortedContains(uid))
        case .neverRendered, .slowFirstFrame:
            return (own || (issue.track != nil && i.track == issue.track)) && holds(issue.ts)
        case .stallsUnderGoodTier, .noQualityData:
            return false
        }
    }

    /// The incident number of each issue under one, by issue index.
    var numbers: [Int?] {
        places.map { if case .incident(let n) = $0 { n } else { nil } }
    }
}

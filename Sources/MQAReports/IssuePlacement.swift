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
    /// The issues under each incident number, in the meeting's issue order.
    let byIncident: [Int: [Issue]]
    /// The issues in no incident, in the meeting's issue order.
    let unplaced: [Issue]
    /// The tuning diagnostics, in the meeting's issue order.
    let tuning: [Issue]

    /// `ranked` is the incidents most impact first, each with its number.
    init<R: RandomAccessCollection<(number: Int, incident: Incident)>>(issues: [Issue], ranked: R) where R.Index == Int {
        let candidates = Candidates(ranked)
        let places = issues.map { IssuePlacement.place($0, ranked, candidates: candidates) }
        var byIncident: [Int: [Issue]] = [:], unplaced: [Issue] = [], tuning: [Issue] = []
        for (issue, place) in zip(issues, places) {
            switch place {
            case .incident(let n): byIncident[n, default: []].append(issue)
            case .noIncident: unplaced.append(issue)
            case .tuning: tuning.append(issue)
            }
        }
        self.places = places
        self.byIncident = byIncident
        self.unplaced = unplaced
        self.tuning = tuning
    }

    /// The issues under incident `number`, in the meeting's issue order.
    func issues(under number: Int) -> [Issue] { byIncident[number] ?? [] }

    /// How many issues are among the call's problems (not tuning diagnostics).
    var problemCount: Int { places.count - tuning.count }

    /// The ranked incidents (by index) that `matches` can accept for an
    /// issue: those of its uid, of its track, and those whose late-loss
    /// viewers name its uid. Testing every incident for every issue took
    /// a 20,000-person meeting's report 186 s.
    struct Candidates {
        private var byUid: [String: [Int]] = [:]
        private var byTrack: [String: [Int]] = [:]
        private var byLateViewer: [String: [Int]] = [:]

        init<R: RandomAccessCollection<(number: Int, incident: Incident)>>(_ ranked: R) where R.Index == Int {
            for (k, r) in ranked.enumerated() {
                byUid[r.incident.uid, default: []].append(k)
                if let t = r.incident.track { byTrack[t, default: []].append(k) }
                for v in Set(r.incident.evidence.lateLossViewers) { byLateViewer[v, default: []].append(k) }
            }
        }

        /// In ranked order, each once.
        func indices(for issue: Issue, uid: String) -> [Int] {
            var out = byUid[uid] ?? []
            if let t = issue.track { out += byTrack[t] ?? [] }
            out += byLateViewer[uid] ?? []
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
        // `kinds` holds a handful at most: a search, not a Set built per pair.
        let kinds = i.kinds
        func holds(_ ts: Int64?) -> Bool { ts.map { i.startTs <= $0 && $0 <= i.endTs } ?? false }
        switch issue.code {
        // Loss a sender's outage left in U's reports (`lateLossViewers`)
        // goes under the incident that holds that outage's stall.
        case .highPacketLoss: return (own && kinds.contains(.loss)) || i.evidence.lateLossViewers.contains(uid)
        case .highLatency: return own && kinds.contains(.rtt)
        case .highJitter: return own && (kinds.contains(.jitter) || i.evidence.maxJitterMs != nil)
        case .lowMOS:
            return (own && kinds.contains { $0 == .lowTier || $0 == .loss || $0 == .rtt }) || i.evidence.lateLossViewers.contains(uid)
        // Each under an incident that shows it: a return for `reconnects`,
        // an errored drop for `abnormal_disconnect` (by impact alone, the
        // return went under a drop that "did not come back").
        case .reconnects: return own && kinds.contains(.disconnect) && i.evidence.awayMs != nil
        case .abnormalDisconnect: return own && kinds.contains(.disconnect) && i.evidence.abnormalDisconnects > 0
        case .videoStalls:
            guard let track = issue.track, kinds.contains(.stall) else { return false }
            return (own && i.evidence.tracks.contains(track))
                || (i.track == track && i.uid == issue.publisher && i.evidence.subscribers.contains(uid))
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

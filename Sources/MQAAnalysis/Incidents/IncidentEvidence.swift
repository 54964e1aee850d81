import MQABase
import MQAModel

/// The figures behind an incident's kinds and cause. Only the fields of
/// the kinds present are set; `json` writes only those.
///
/// The figures of the kinds themselves are stored in the struct; those
/// of the cause rules (seldom set) share one box, made only when one of
/// them is set. A noisy webinar's report holds 94,000 loss and tier
/// incidents, and with every figure in the struct each took ~550 bytes.
public struct IncidentEvidence: Sendable, Equatable {
    /// Stalls in the incident, summed over subscribers.
    public var stallCount: Int = 0
    public var stalledMs: Int64 = 0
    /// The stalled tracks, sorted.
    public var tracks: [String] = []
    /// Who saw the stalls, sorted (for a publisher-side incident: every
    /// subscriber that stalled together).
    public var subscribers: [String] = []
    /// Time at `poor`/`bad`; the lowest tier reached is below.
    public var lowTierMs: Int64 = 0
    /// Disconnects in the incident, the first error, and how long the
    /// participant was away (nil: did not come back).
    public var disconnects: Int = 0
    /// Those of `disconnects` with an error: the abnormal ones, which
    /// weigh in the impact (as in the participant's and the fleet score).
    public var abnormalDisconnects: Int = 0
    /// The cause rules' figures, nil while none is set.
    private var details = RareFields<EvidenceDetails>()
    // The optionals last, the one-byte tier between the two doubles: its
    // byte packs after the first's (89 bytes, not 104).
    /// Largest loss (%) and RTT (ms) among the spiking warm reports.
    public var maxLossPct: Double?
    public var lowestTier: Tier?
    public var maxRttMs: Double?

    public init() {}

    /// A cause rule's figure (`RareFields`).
    private subscript<T>(detail path: WritableKeyPath<EvidenceDetails, T>) -> T {
        get { details[path] }
        set { details[path] = newValue }
    }
}

/// The figures of `IncidentEvidence` that the cause rules set.
struct EvidenceDetails: RareFieldSet {
    static let none = EvidenceDetails()
    var disconnectError: String?
    var awayMs: Int64?
    var awayEach: [Int64?] = []
    var publishers: [String] = []
    var publisherKinds: [IncidentKind] = []
    var publisherMaxLossPct: Double?
    var publisherMaxRttMs: Double?
    var baselineLossPct: Double?
    var baselineRttMs: Double?
    var maxJitterMs: Double?
    var baselineJitterMs: Double?
    var networkChange: String?
    var burstTracks: Int?
    var otherTracksPlaying: Int?
    var othersPlaying: Int?
    var lateLossPct: Double?
    var lateLossViewers: [String] = []
    var strainedGapMs: Int64?
    var cleanConnections: Int?
    var alsoLossy: [String] = []
    var alsoLossyMaxPct: Double?
    var alsoSlow: [String] = []
    var alsoSlowMaxRttMs: Double?
}

extension IncidentEvidence {
    public var disconnectError: String? { get { self[detail: \.disconnectError] } set { self[detail: \.disconnectError] = newValue } }
    public var awayMs: Int64? { get { self[detail: \.awayMs] } set { self[detail: \.awayMs] = newValue } }
    /// How long each disconnect of the incident lasted, in order (nil:
    /// did not come back); `awayMs` is the first.
    public var awayEach: [Int64?] { get { self[detail: \.awayEach] } set { self[detail: \.awayEach] = newValue } }
    /// Publisher side: the publisher(s), and what their own signals showed
    /// within 2 s (for a participant's stalls, the reason for the blame).
    public var publishers: [String] { get { self[detail: \.publishers] } set { self[detail: \.publishers] = newValue } }
    public var publisherKinds: [IncidentKind] { get { self[detail: \.publisherKinds] } set { self[detail: \.publisherKinds] = newValue } }
    /// The publisher(s)' own largest loss (%) and RTT (ms) over the window.
    public var publisherMaxLossPct: Double? { get { self[detail: \.publisherMaxLossPct] } set { self[detail: \.publisherMaxLossPct] = newValue } }
    public var publisherMaxRttMs: Double? { get { self[detail: \.publisherMaxRttMs] } set { self[detail: \.publisherMaxRttMs] = newValue } }
    /// The participant's own median loss and RTT, when a rise against
    /// them is the evidence (`maxLossPct`/`maxRttMs` are the rise).
    public var baselineLossPct: Double? { get { self[detail: \.baselineLossPct] } set { self[detail: \.baselineLossPct] = newValue } }
    public var baselineRttMs: Double? { get { self[detail: \.baselineRttMs] } set { self[detail: \.baselineRttMs] = newValue } }
    /// A jitter rise against the participant's baseline: its peak and baseline, ms.
    public var maxJitterMs: Double? { get { self[detail: \.maxJitterMs] } set { self[detail: \.maxJitterMs] = newValue } }
    public var baselineJitterMs: Double? { get { self[detail: \.baselineJitterMs] } set { self[detail: \.baselineJitterMs] = newValue } }
    /// A `network_change` in the 10 s before, e.g. `wifi→cellular`.
    public var networkChange: String? { get { self[detail: \.networkChange] } set { self[detail: \.networkChange] = newValue } }
    /// `own_device`: how many tracks stalled within 2 s.
    public var burstTracks: Int? { get { self[detail: \.burstTracks] } set { self[detail: \.burstTracks] = newValue } }
    /// One tile froze alone: how many other tracks kept playing.
    public var otherTracksPlaying: Int? { get { self[detail: \.otherTracksPlaying] } set { self[detail: \.otherTracksPlaying] = newValue } }
    /// The viewer's side: how many other viewers of the stalled track kept
    /// playing through the stall (the fewest over its stalls).
    public var othersPlaying: Int? { get { self[detail: \.othersPlaying] } set { self[detail: \.othersPlaying] = newValue } }
    /// Loss the viewers reported as the stalled stream came back: the
    /// sender's outage counted late (`LateLoss`), not their own network.
    /// The largest, and whose (sorted, each once).
    public var lateLossPct: Double? { get { self[detail: \.lateLossPct] } set { self[detail: \.lateLossPct] = newValue } }
    public var lateLossViewers: [String] { get { self[detail: \.lateLossViewers] } set { self[detail: \.lateLossViewers] = newValue } }
    /// `own_device` from a strained feed: the longest gap between the
    /// participant's own reports while its RTT rose, ms.
    public var strainedGapMs: Int64? { get { self[detail: \.strainedGapMs] } set { self[detail: \.strainedGapMs] = newValue } }
    /// Publisher side on a mesh call (`MeshLoss`): how many of the
    /// viewer's connections received cleanly while the one from the
    /// sender lost packets, and the other viewers whose connections from
    /// the sender lost packets too, with the largest of their loss (%).
    public var cleanConnections: Int? { get { self[detail: \.cleanConnections] } set { self[detail: \.cleanConnections] = newValue } }
    public var alsoLossy: [String] { get { self[detail: \.alsoLossy] } set { self[detail: \.alsoLossy] = newValue } }
    public var alsoLossyMaxPct: Double? { get { self[detail: \.alsoLossyMaxPct] } set { self[detail: \.alsoLossyMaxPct] = newValue } }
    /// The same for a round trip over the RTT line on the viewer's
    /// connection with the sender: the others whose connections with the
    /// sender were slow too, and the longest of their RTT (ms).
    public var alsoSlow: [String] { get { self[detail: \.alsoSlow] } set { self[detail: \.alsoSlow] = newValue } }
    public var alsoSlowMaxRttMs: Double? { get { self[detail: \.alsoSlowMaxRttMs] } set { self[detail: \.alsoSlowMaxRttMs] = newValue } }
}

extension IncidentEvidence {
    public var json: JSON {
        var f: [(String, JSON)] = []
        if stallCount > 0 {
            f += [("stallCount", .int(Int64(stallCount))), ("stalledMs", .int(stalledMs)),
                  ("tracks", .array(tracks.map { .string($0) })), ("subscribers", .array(subscribers.map { .string($0) }))]
        }
        if let lowestTier { f += [("lowTierMs", .int(lowTierMs)), ("lowestTier", .string(lowestTier.name))] }
        if let maxLossPct { f.append(("maxLossPct", .double(maxLossPct))) }
        if let maxRttMs { f.append(("maxRttMs", .double(maxRttMs))) }
        if disconnects > 0 {
            f += [("disconnects", .int(Int64(disconnects))), ("error", .optional(disconnectError)), ("awayMs", .optional(awayMs))]
        }
        if !publishers.isEmpty {
            f += [("publishers", .array(publishers.map { .string($0) })),
                  ("publisherKinds", .array(publisherKinds.map { .string($0.rawValue) }))]
        }
        if let v = publisherMaxLossPct { f.append(("publisherMaxLossPct", .double(v))) }
        if let v = publisherMaxRttMs { f.append(("publisherMaxRttMs", .double(v))) }
        if let v = baselineLossPct { f.append(("baselineLossPct", .double(v))) }
        if let v = baselineRttMs { f.append(("baselineRttMs", .double(v))) }
        if let v = maxJitterMs { f.append(("maxJitterMs", .double(v))) }
        if let v = baselineJitterMs { f.append(("baselineJitterMs", .double(v))) }
        if let v = networkChange { f.append(("networkChange", .string(v))) }
        if let v = burstTracks { f.append(("burstTracks", .int(Int64(v)))) }
        if let v = otherTracksPlaying { f.append(("otherTracksPlaying", .int(Int64(v)))) }
        if let v = othersPlaying { f.append(("othersPlaying", .int(Int64(v)))) }
        if let v = strainedGapMs { f.append(("strainedGapMs", .int(v))) }
        if let v = cleanConnections {
            f.append(("cleanConnections", .int(Int64(v))))  // set with one of the two below by rule 2c
            if let rtt = alsoSlowMaxRttMs {
                f += [("alsoSlow", .array(alsoSlow.map { .string($0) })), ("alsoSlowMaxRttMs", .double(rtt))]
            } else {
                f += [("alsoLossy", .array(alsoLossy.map { .string($0) })), ("alsoLossyMaxPct", .optional(alsoLossyMaxPct))]
            }
        }
        if let v = lateLossPct {
            f += [("lateLossPct", .double(v)), ("lateLossViewers", .array(lateLossViewers.map { .string($0) }))]
        }
        return .object(f)
    }
}

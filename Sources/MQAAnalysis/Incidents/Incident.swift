import MQABase
import MQAModel

/// What an incident is made of: the signals that co-occurred in it.
public enum IncidentKind: String, Sendable, CaseIterable, Comparable {
    /// A video stall (`receive_stream_status` timed out after the first frame).
    case stall
    /// The recomputed tier at `poor` or `bad`.
    case lowTier = "low_tier"
    /// Warm reports with loss above the `high_packet_loss` threshold (5 %).
    case loss
    /// Warm reports with RTT above the `high_latency` threshold (400 ms).
    case rtt
    /// A disconnect with an error, or one the client reconnected after.
    case disconnect
    /// Warm reports' jitter well above the participant's own baseline: only
    /// ever evidence of a stall, never an incident alone.
    case jitter

    /// Declaration order, so `kinds` lists read the same everywhere.
    public static func < (a: IncidentKind, b: IncidentKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// The kind in a few words, for reports.
    public var words: String {
        switch self {
        case .stall: "stall"
        case .lowTier: "poor/bad tier"
        case .loss: "loss spike"
        case .rtt: "RTT spike"
        case .disconnect: "disconnect"
        case .jitter: "jitter rise"
        }
    }
}

/// The likely cause of an incident, decided by the first rule that applies
/// (see `IncidentFinder`).
public enum IncidentCause: String, Sendable, CaseIterable {
    /// The participant dropped off the call.
    case disconnect
    /// The sending side: every subscriber watching the track stalled
    /// together, or the publisher's own network degraded during the stalls.
    case publisher
    /// The participant's own network: their loss, RTT or tier, a rise of
    /// them against their own baseline, or a network change.
    case ownNetwork = "own_network"
    /// The participant's own device: stalls on several tracks at once with
    /// a clean network (the decoder or the CPU).
    case ownDevice = "own_device"
    /// Stalls with no degraded network on either side.
    case unknown

    /// One phrase for the reader.
    public var words: String {
        switch self {
        case .disconnect: "disconnect"
        case .publisher: "publisher side"
        case .ownNetwork: "own network"
        case .ownDevice: "own device"
        case .unknown: "unknown"
        }
    }
}

/// The figures behind an incident's kinds and cause. Only the fields of
/// the kinds present are set; `json` writes only those.
public struct IncidentEvidence: Sendable, Equatable {
    /// Stalls in the incident, summed over subscribers.
    public var stallCount = 0
    public var stalledMs: Int64 = 0
    /// The stalled tracks, sorted.
    public var tracks: [String] = []
    /// Who saw the stalls, sorted (for a publisher-side incident: every
    /// subscriber that stalled together).
    public var subscribers: [String] = []
    /// Time at `poor`/`bad` and the lowest tier reached.
    public var lowTierMs: Int64 = 0
    public var lowestTier: Tier?
    /// Largest loss (%) and RTT (ms) among the spiking warm reports.
    public var maxLossPct: Double?
    public var maxRttMs: Double?
    /// Disconnects in the incident, the first error, and how long the
    /// participant was away (nil: did not come back).
    public var disconnects = 0
    /// Those of `disconnects` with an error: the abnormal ones, which
    /// weigh in the impact (as in the participant's and the fleet score).
    public var abnormalDisconnects = 0
    public var disconnectError: String?
    public var awayMs: Int64?
    /// How long each disconnect of the incident lasted, in order (nil:
    /// did not come back); `awayMs` is the first.
    public var awayEach: [Int64?] = []
    /// Publisher side: the publisher(s), and what their own signals showed
    /// within 2 s (for a participant's stalls, the reason for the blame).
    public var publishers: [String] = []
    public var publisherKinds: [IncidentKind] = []
    /// The publisher(s)' own largest loss (%) and RTT (ms) over the window.
    public var publisherMaxLossPct: Double?
    public var publisherMaxRttMs: Double?
    /// The participant's own median loss and RTT, when a rise against
    /// them is the evidence (`maxLossPct`/`maxRttMs` are the rise).
    public var baselineLossPct: Double?
    public var baselineRttMs: Double?
    /// A jitter rise against the participant's baseline: its peak and baseline, ms.
    public var maxJitterMs: Double?
    public var baselineJitterMs: Double?
    /// A `network_change` in the 10 s before, e.g. `wifi→cellular`.
    public var networkChange: String?
    /// `own_device`: how many tracks stalled within 2 s.
    public var burstTracks: Int?
    /// One tile froze alone: how many other tracks kept playing.
    public var otherTracksPlaying: Int?
    /// The viewer's side: how many other viewers of the stalled track kept
    /// playing through the stall (the fewest over its stalls).
    public var othersPlaying: Int?
    /// Loss the viewers reported as the stalled stream came back: the
    /// sender's outage counted late (`LateLoss`), not their own network.
    /// The largest, and whose.
    public var lateLossPct: Double?
    public var lateLossViewers: [String] = []
    /// `own_device` from a strained feed: the longest gap between the
    /// participant's own reports while its RTT rose, ms.
    public var strainedGapMs: Int64?
    /// Publisher side on a mesh call (`MeshLoss`): how many of the
    /// viewer's connections received cleanly while the one from the
    /// sender lost packets, and the other viewers whose connections from
    /// the sender lost packets too, with the largest of their loss (%).
    public var cleanConnections: Int?
    public var alsoLossy: [String] = []
    public var alsoLossyMaxPct: Double?
    /// The same for a round trip over the RTT line on the viewer's
    /// connection with the sender: the others whose connections with the
    /// sender were slow too, and the longest of their RTT (ms).
    public var alsoSlow: [String] = []
    public var alsoSlowMaxRttMs: Double?

    public init() {}

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

/// A time window in which trouble signals co-occurred for one participant
/// (or, publisher side, for one published track), merged by the rule of
/// `IncidentFinder`.
public struct Incident: Sendable, Equatable {
    public var startTs: Int64
    public var endTs: Int64
    /// The participant concerned; for a track's incident, its publisher.
    public var uid: String
    /// Set for a track's incident: stalls that every subscriber watching
    /// the track saw together (cause `publisher`). Nil for a participant's
    /// incident, whose stalled tracks are in `evidence.tracks`.
    public var track: String?
    /// The kinds present, in `IncidentKind` order.
    public var kinds: [IncidentKind]
    public var cause: IncidentCause
    public var evidence: IncidentEvidence

    public var durationMs: Int64 { endTs - startTs }

    /// The weight used to rank incidents, in ms of degraded experience,
    /// with the fleet score's weights: stalled ms + poor/bad ms + 30 s per
    /// abnormal disconnect (a clean drop and return weighs its poor time
    /// only, as in the participant's impact, so that a participant's
    /// incident never outweighs the participant; a track's incident sums
    /// every viewer's stalls and may outweigh its publisher's own impact).
    public var impactMs: Int64 {
        evidence.stalledMs + evidence.lowTierMs + IncidentFinder.msPerDisconnect * Int64(evidence.abnormalDisconnects)
    }

    /// `{startTs, endTs, uid, track, kinds, cause, evidence}` of the meeting JSON.
    public var json: JSON {
        .object([
            ("startTs", .int(startTs)), ("endTs", .int(endTs)), ("uid", .string(uid)), ("track", .optional(track)),
            ("kinds", .array(kinds.map { .string($0.rawValue) })), ("cause", .string(cause.rawValue)),
            ("impactMs", .int(impactMs)), ("evidence", evidence.json),
        ])
    }
}

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

    /// The kind's bit in `Incident.kinds`, by declaration order.
    var bit: UInt8 {
        switch self {
        case .stall: 1
        case .lowTier: 2
        case .loss: 4
        case .rtt: 8
        case .disconnect: 16
        case .jitter: 32
        }
    }

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
    public var evidence: IncidentEvidence
    public var cause: IncidentCause
    /// `kinds` as a bit per kind, by its place in `IncidentKind.allCases`:
    /// as an array, each of a 20,000-viewer webinar's 106,000 incidents
    /// held one more allocation. (Last, with `cause`: the bytes pack.)
    private var kindBits: UInt8

    /// The kinds present, in `IncidentKind` order (each once).
    public var kinds: [IncidentKind] {
        get { Incident.order.filter(has) }
        set { kindBits = Incident.bits(newValue) }
    }

    /// Whether `kind` is among `kinds`.
    public func has(_ kind: IncidentKind) -> Bool { kindBits & kind.bit != 0 }

    private static let order = IncidentKind.allCases

    private static func bits(_ kinds: [IncidentKind]) -> UInt8 { kinds.reduce(0) { $0 | $1.bit } }

    public init(startTs: Int64, endTs: Int64, uid: String, track: String?, kinds: [IncidentKind], cause: IncidentCause,
                evidence: IncidentEvidence) {
        self.startTs = startTs
        self.endTs = endTs
        self.uid = uid
        self.track = track
        self.evidence = evidence
        self.cause = cause
        kindBits = Incident.bits(kinds)
    }

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

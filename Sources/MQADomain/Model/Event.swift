/// One quality report's measured values, as `Double`s exactly as JSON parsing
/// rounds the logged decimal text.
public struct QualityReport: Hashable, Sendable {
    /// Packet loss in percent, 0...100.
    public var loss: Double
    /// Round-trip time in ms; 0 means "not measured yet".
    public var rtt: Double
    public var jitter: Double
    /// Bitrate in kbps.
    public var bitrate: Double
    /// The SDK's MOS; `nil` when the log had `null`. `0` is kept as `0`.
    public var mos: Double?

    public init(loss: Double, rtt: Double, jitter: Double, bitrate: Double, mos: Double?) {
        self.loss = loss
        self.rtt = rtt
        self.jitter = jitter
        self.bitrate = bitrate
        self.mos = mos
    }
}

/// The payload of a known event: only the fields the log format defines.
/// Unknown extra fields are not kept (they never affect any result).
public enum EventPayload: Hashable, Sendable {
    case meetingJoin(engine: String, title: String?)
    case meetingLeave
    case disconnect(reason: String, error: String?)
    case reconnect
    case qualityReport(QualityReport)
    case connectionQualityChange(tier: String)
    case activeSpeakersChange(speakers: [String])
    case streamSubscribe(publisher: String, track: String, kind: String)
    case streamUnsubscribe(publisher: String, track: String)
    case receiveStreamStatus(publisher: String, track: String, timedOut: Bool)
    case userEnter(target: String)
    case userLeave(target: String)
    case memberMediaState(target: String, media: String, on: Bool, byAdmin: Bool, opUid: String?)
    case roomTitleChange(title: String, previousTitle: String)
    case roomShareStart(publisher: String)
    case roomShareStop(publisher: String)

    public var kind: EventKind {
        switch self {
        case .meetingJoin: .meetingJoin
        case .meetingLeave: .meetingLeave
        case .disconnect: .disconnect
        case .reconnect: .reconnect
        case .qualityReport: .qualityReport
        case .connectionQualityChange: .connectionQualityChange
        case .activeSpeakersChange: .activeSpeakersChange
        case .streamSubscribe: .streamSubscribe
        case .streamUnsubscribe: .streamUnsubscribe
        case .receiveStreamStatus: .receiveStreamStatus
        case .userEnter: .userEnter
        case .userLeave: .userLeave
        case .memberMediaState: .memberMediaState
        case .roomTitleChange: .roomTitleChange
        case .roomShareStart: .roomShareStart
        case .roomShareStop: .roomShareStop
        }
    }
}

/// A payload with the client time it fired at (ms since the Unix epoch).
public struct TimedEvent: Hashable, Sendable {
    public var ts: Int64
    public var payload: EventPayload

    public init(ts: Int64, payload: EventPayload) {
        self.ts = ts
        self.payload = payload
    }
}

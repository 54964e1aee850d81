import MQABase
import MQAModel
import MQAAnalysis

/// What the simulator knows and the logs only hint at: for tests and for
/// scoring the pipeline. Built only when asked for (`Simulator.meeting(_:)`).

/// Why a generated stall happened.
public enum StallCause: String, Sendable {
    /// The subscriber's network dropped the frames (odds rise with a bad state).
    case subscriberNetwork
    /// The sender's camera froze: independent of the subscriber's network,
    /// so it happens under a good tier too; every subscriber rendering the
    /// track at the time stalls with it (`SenderFreezes`).
    case senderCameraFroze
    /// The subscriber's SDK failed to decode (the planted 5.3.0 regression,
    /// `ClientProfileModel.decoderStallChance`): any network, any tier.
    case subscriberDecoder
}

public struct StallTruth: Sendable, Equatable {
    public let subscriber: String
    public let publisher: String
    public let track: String
    /// `timedOut: true` at `start`; `timedOut: false` at `end` unless `open`
    /// (the subscription ended first; `end` is then that end).
    public let start: Int64
    public let end: Int64
    public let open: Bool
    public let cause: StallCause
    /// The subscriber's network state when the stall began.
    public let subscriberState: NetworkState
}

public struct NetworkSegment: Sendable, Equatable {
    public let start: Int64
    public let end: Int64
    public let state: NetworkState
}

public struct ConnectionTruth: Sendable, Equatable {
    public let start: Int64
    public let end: Int64
    public let isReconnect: Bool
    /// "leave", "network", "meeting_ended", "kicked" or "silent" (app killed).
    public let endReason: String
}

public struct ClientTruth: Sendable {
    public let uid: String
    public let mobile: Bool
    public let connections: [ConnectionTruth]
    /// The network Markov chain's states over the client's presence.
    public let network: [NetworkSegment]
    /// Spans the app was in the background (no quality feed).
    public let backgrounds: [(start: Int64, end: Int64)]
    public let qualityReports: Int
    public let coldReports: Int
}

public struct SubscriptionTruth: Sendable, Equatable {
    public let subscriber: String
    public let publisher: String
    public let track: String
    public let subscribeTs: Int64
    public let end: Int64
    /// nil: never rendered.
    public let firstFrameTs: Int64?
}

public struct MeetingTruth: Sendable {
    public let meeting: String
    public let engine: Engine
    public let title: String
    public let start: Int64
    public let end: Int64
    public let clients: [ClientTruth]
    public let subscriptions: [SubscriptionTruth]
    public let stalls: [StallTruth]
    /// Milliseconds of flowing (rendered, foreground) subscribed video by
    /// the subscriber's network state, indexed by `NetworkState.rawValue`:
    /// the time at risk of a stall, to turn stall counts into rates.
    public let exposureMs: [Int64]
}

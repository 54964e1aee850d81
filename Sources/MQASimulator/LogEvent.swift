import MQABase
import MQAModel
import MQAAnalysis

/// One event a client logs, before it is written as a line. Payloads refer
/// to the meeting plan by index so that no strings are built per event.
enum Payload: Sendable {
    case join(title: Int?)
    case leave
    case disconnect(ConnectionEnd)
    case reconnect
    case quality(Measurement)
    /// Cold-start report: RTT 0, placeholder MOS, no loss/jitter yet.
    case coldQuality(bitrate: Int)
    /// The SDK's tier: 0 excellent ... 4 bad.
    case tier(Int)
    /// Index into `MeetingPlan.speakers`.
    case speakers(Int)
    case subscribe(publisher: Int, screen: Bool)
    case unsubscribe(publisher: Int, screen: Bool)
    case streamStatus(publisher: Int, screen: Bool, timedOut: Bool)
    case userEnter(Int)
    case userLeave(Int)
    /// Index into `MeetingPlan.events`.
    case meeting(Int)
    /// An event the pipeline does not know (kind 0..<4) with a value.
    case unknown(kind: Int, value: Int)
    /// A context event of format 1.1.
    case context(ContextEvent)
}

struct LogEvent: Sendable {
    /// Position in the written log (ts, or later for a reordered line).
    var key: Int64
    var ts: Int64
    var seq: Int32
    var payload: Payload
}

/// How one client's app writes its log: the messy, per-device parts.
struct ClientStyle: Sendable {
    enum TimeFormat: Sendable { case epochMs, rfc3339, rfc3339Offset }
    var time: TimeFormat
    var tsLast: Bool
    var extras: Bool
    var sdkVersion: Int
    /// 0: mos 0, 1: mos null, 2: mos 4.5 in cold reports.
    var placeholder: Int
    var capitalizedTier: Bool
    var omitTitle: Bool

    init(parameters p: SimulationParameters, _ rng: inout SplitMix64) {
        let d = p.disorder
        let x = rng.unit()
        time = x < d.rfc3339OffsetShare ? .rfc3339Offset
            : x < d.rfc3339OffsetShare + d.rfc3339Share ? .rfc3339 : .epochMs
        tsLast = rng.chance(d.tsLastShare)
        extras = rng.chance(d.extraFieldsShare)
        // Drawn as when it chose the `sdk` extra field (dropped with format
        // 1.2, whose `sdkVersion` comes from `ClientProfile`), so that the
        // draws after it stay the same.
        sdkVersion = rng.below(4)
        placeholder = rng.weighted(p.quality.placeholderWeights)
        capitalizedTier = rng.chance(p.quality.capitalizedTierShare)
        omitTitle = rng.chance(p.meetings.joinWithoutTitleShare)
    }
}

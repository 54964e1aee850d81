import MQABase
import MQAModel
import MQAAnalysis

/// The hidden state of one client's network, one Markov step per report
/// interval. It drives loss, RTT, jitter, capacity, disconnects and stalls.
public enum NetworkState: Int, CaseIterable, Sendable, Codable {
    /// Uncongested path: sub-percent loss, base RTT, low jitter.
    case good = 0
    /// Queues build up (cross traffic, a saturated uplink): RTT and jitter
    /// rise, capacity falls, moderate loss.
    case congested = 1
    /// Weak or contended Wi-Fi / radio: correlated loss bursts and jitter.
    case lossyWiFi = 2
    /// A mobile handover (cell change, Wi-Fi <-> cellular): a few seconds of
    /// heavy loss and very high RTT; the likeliest moment to disconnect.
    case mobileHandover = 3

    /// True for every state but `.good`.
    public var isBad: Bool { self != .good }

    public var name: String {
        switch self {
        case .good: "good"
        case .congested: "congested"
        case .lossyWiFi: "lossyWiFi"
        case .mobileHandover: "mobileHandover"
        }
    }
}

/// How one network state shapes the measured values. Ranges are drawn
/// uniformly per step unless documented otherwise.
public struct NetworkStateModel: Sendable, Equatable {
    /// Baseline packet loss (percent) outside bursts.
    public var lossPercent: ClosedRange<Double>
    /// Chance per report step that a loss burst starts.
    public var burstChance: Double
    /// Extra loss (percent) while a burst lasts.
    public var burstLossPercent: ClosedRange<Double>
    /// Burst length in report steps.
    public var burstSteps: ClosedRange<Int>
    /// Queueing / radio delay added to the client's base RTT (ms).
    public var extraRttMs: ClosedRange<Double>
    /// Target jitter (ms); the measured jitter follows it smoothly.
    public var jitterMs: ClosedRange<Double>
    /// Path capacity (kbps) that congestion control converges to.
    public var capacityKbps: ClosedRange<Double>
    /// Chance per report step that a connected client drops (reason `network`).
    public var disconnectChance: Double
    /// Chance per report step that a flowing subscribed video track stalls
    /// because of the subscriber's network (on top of the sender freezes).
    public var stallChance: Double
    /// Duration of a network-caused stall (ms).
    public var stallMs: ClosedRange<Int>

    public init(lossPercent: ClosedRange<Double>, burstChance: Double,
                burstLossPercent: ClosedRange<Double>, burstSteps: ClosedRange<Int>,
                extraRttMs: ClosedRange<Double>, jitterMs: ClosedRange<Double>,
                capacityKbps: ClosedRange<Double>, disconnectChance: Double,
                stallChance: Double, stallMs: ClosedRange<Int>) {
        self.lossPercent = lossPercent
        self.burstChance = burstChance
        self.burstLossPercent = burstLossPercent
        self.burstSteps = burstSteps
        self.extraRttMs = extraRttMs
        self.jitterMs = jitterMs
        self.capacityKbps = capacityKbps
        self.disconnectChance = disconnectChance
        self.stallChance = stallChance
        self.stallMs = stallMs
    }
}

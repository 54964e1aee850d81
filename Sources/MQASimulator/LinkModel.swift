import MQABase
import MQAModel
import MQAAnalysis

/// One report's measured values.
struct Measurement: Sendable {
    var loss: Double      // percent
    var rtt: Int          // ms
    var jitter: Int       // ms
    var bitrate: Int      // kbps
    var mos: Double       // 1...5
}

/// The values one client measures, driven by its network state: smoothed
/// loss with correlated bursts, RTT and jitter that follow the state's
/// targets, a congestion-controlled bitrate, and MOS derived from them.
struct LinkModel {
    private let states: [NetworkStateModel]
    private let quality: SimulationParameters.Quality
    private let rttNoise: Double
    let baseRtt: Double
    let maxBitrate: Double
    let rampFactor: Double

    private var loss = 0.0
    private var burstLeft = 0
    private var burstLoss = 0.0
    private var extraRtt = 0.0
    private var jitter = 3.0
    private(set) var bitrate = 0.0

    init(parameters p: SimulationParameters, mobile: Bool, _ rng: inout SplitMix64) {
        states = p.network.states
        quality = p.quality
        rttNoise = p.network.rttNoise
        var rtt = rng.double(in: p.network.baseRttMs)
        if mobile { rtt += rng.double(in: p.network.mobileExtraRttMs) }
        baseRtt = rtt
        maxBitrate = rng.double(in: p.quality.maxBitrateKbps)
        rampFactor = rng.double(in: p.quality.rampFactor)
    }

    /// A new connection: congestion control starts over.
    mutating func restart(_ rng: inout SplitMix64) {
        bitrate = rng.double(in: quality.startBitrateKbps)
        burstLeft = 0
    }

    /// What a client that left Wi-Fi for cellular mid-call loses (format
    /// 1.2's `network_change`): more RTT, less capacity. Fixed, so that the
    /// switch changes no random draw.
    static let cellularExtraRttMs = 45.0
    static let cellularCapacityFactor = 0.6
    /// What any time on cellular costs (joined there or switched): more
    /// loss, the second planted cohort difference (`netType`).
    static let cellularExtraLossPercent = 2.0

    /// Advances one step in `state` and returns what the SDK measures;
    /// `cellular`: the client switched to cellular (the link is worse);
    /// `onCellular`: it is on cellular now, however it got there (more loss).
    mutating func measure(in state: NetworkState, cellular: Bool = false, onCellular: Bool = false,
                          _ rng: inout SplitMix64) -> Measurement {
        let m = states[state.rawValue]

        loss = 0.5 * loss + 0.5 * rng.double(in: m.lossPercent)
        if burstLeft == 0 && rng.chance(m.burstChance) {
            burstLeft = rng.int(in: m.burstSteps)
            burstLoss = rng.double(in: m.burstLossPercent)
        }
        var measuredLoss = loss
        if burstLeft > 0 {
            measuredLoss += burstLoss * rng.double(in: 0.7...1.3)
            burstLeft -= 1
        }
        if onCellular { measuredLoss += LinkModel.cellularExtraLossPercent }
        measuredLoss = min(100, max(0, measuredLoss))

        extraRtt = 0.6 * extraRtt + 0.4 * rng.double(in: m.extraRttMs)
        let base = cellular ? baseRtt + LinkModel.cellularExtraRttMs : baseRtt
        let rtt = max(1, ((base + extraRtt) * (1 + rttNoise * rng.gaussian())).rounded())

        jitter = 0.5 * jitter + 0.5 * rng.double(in: m.jitterMs)
        let measuredJitter = max(0, (jitter * (1 + 0.15 * rng.gaussian())).rounded())

        let capacity = rng.double(in: m.capacityKbps) * (cellular ? LinkModel.cellularCapacityFactor : 1)
        if bitrate > capacity || measuredLoss > quality.backoffLossPercent {
            bitrate = max(50, bitrate * quality.backoffFactor)
        } else {
            bitrate = min(bitrate * rampFactor, maxBitrate, capacity)
        }
        let measuredBitrate = (bitrate * rng.double(in: 0.95...1.05)).rounded()

        // The one E-model (MQAAnalysis): the SDK MOS simulated here is the MOS
        // mqa computes from the same values, before the noise below.
        var mos = EModel.mos(rtt: rtt, loss: measuredLoss, jitter: measuredJitter,
                             params: EModelParams(ie: quality.emodelIe, bpl: quality.emodelBpl))
        mos += quality.mosNoise * rng.gaussian()
        mos = min(quality.mosCap, max(1, mos))

        return Measurement(loss: measuredLoss, rtt: Int(rtt), jitter: Int(measuredJitter),
                           bitrate: Int(measuredBitrate), mos: mos)
    }
}

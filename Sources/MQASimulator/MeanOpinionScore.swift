import MQABase
import MQAModel
import MQAAnalysis

/// MOS from network values: the simplified E-model of tiers.md (ITU-T G.107
/// R -> MOS with the effective-latency delay term). Only +, -, *, / are used,
/// so the result is bit-identical on every platform.
enum MeanOpinionScore {
    static func emodel(loss: Double, rtt: Double, jitter: Double, ie: Double, bpl: Double) -> Double {
        let d = rtt / 2 + 2 * jitter + 10
        let id = d < 160 ? d / 40 : (d - 120) / 10
        let ieEff = ie + (95 - ie) * loss / (loss + bpl)
        let r = 93.2 - id - ieEff
        if r <= 0 { return 1 }
        if r >= 100 { return 4.5 }
        return 1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r)
    }
}

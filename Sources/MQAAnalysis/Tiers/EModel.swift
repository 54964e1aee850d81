import MQABase
import MQAModel

/// The simplified E-model of the spec: ITU-T G.107 R→MOS with Ie,eff from
/// G.107/G.113 and the effective-latency delay term VoIP monitors use.
///
/// Every expression is written exactly in the spec's order of operations
/// (Swift does not contract `a * b + c` into a fused multiply-add), so the
/// result is bit-identical to any other implementation that follows the spec.
public enum EModel {
    /// MOS from network measurements: `rtt` and `jitter` in ms, `loss` in percent.
    @inlinable
    public static func mos(rtt: Double, loss: Double, jitter: Double, params: EModelParams) -> Double {
        let d = rtt / 2 + 2 * jitter + 10
        let id = d < 160 ? d / 40 : (d - 120) / 10
        let ie = params.ie + (95 - params.ie) * loss / (loss + params.bpl)
        let r = 93.2 - id - ie
        return mos(r: r)
    }

    /// G.107's R-factor → MOS mapping.
    @inlinable
    public static func mos(r: Double) -> Double {
        r <= 0 ? 1 : (r >= 100 ? 4.5 : 1 + 0.035 * r + 0.000007 * r * (r - 60) * (100 - r))
    }
}

/// The MOS one report contributes: the SDK's when it is in [1, 5] and the
/// config trusts the SDK, the E-model's otherwise. The single definition used
/// by both the meeting analysis and the tuning sweep.
public enum ReportMOS {
    /// `sdkMOS` is NaN for `null`; 0 means "not available yet".
    @inlinable
    public static func mos(sdkMOS: Double, rtt: Double, loss: Double, jitter: Double,
                           source: MOSSource, emodel: EModelParams) -> Double {
        // NaN fails both comparisons, so `null` falls through to the E-model.
        if source == .sdk, sdkMOS >= 1, sdkMOS <= 5 { return sdkMOS }
        return EModel.mos(rtt: rtt, loss: loss, jitter: jitter, params: emodel)
    }
}

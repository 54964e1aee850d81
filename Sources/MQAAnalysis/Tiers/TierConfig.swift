import MQABase
import MQAModel

/// Where the MOS that drives the tier comes from.
public enum MOSSource: String, Sendable, Hashable, CaseIterable {
    /// The SDK's `mos` when it is in [1, 5], else the E-model.
    case sdk
    /// Always the E-model, whatever the SDK logged.
    case emodel
}

/// The E-model's codec parameters (ITU-T G.113 Ie and Bpl).
public struct EModelParams: Sendable, Hashable {
    /// Equipment impairment factor of the codec, in [0, 95].
    public var ie: Double
    /// Packet-loss robustness factor, > 0.
    public var bpl: Double

    public init(ie: Double = 0, bpl: Double = 25.1) {
        self.ie = ie
        self.bpl = bpl
    }
}

/// The tier config of the spec (`--config FILE`): every key with its default.
///
/// Build one with `TierConfig()` (defaults) or `TierConfig.parse(_:)` (a JSON
/// file giving any subset of keys). A value built by hand should be checked
/// with `validate()` before use: the engine assumes a valid config. The keys
/// (names, JSON, checks) are listed once, in `TierConfig.fields`.
public struct TierConfig: Sendable, Hashable {
    /// MOS edges `[t0, t1, t2, t3]` of excellent/good/fair/poor, strictly decreasing.
    public var thresholds: [Double] = [4.0, 3.6, 3.1, 2.6]
    /// How far above an edge the smoothed MOS must be before a rise is taken.
    public var hysteresis: Double = 0.1
    /// Smoothing weight of a new MOS below the smoothed one, in (0, 1].
    public var alphaDown: Double = 0.8
    /// Smoothing weight of a new MOS at or above the smoothed one, in (0, 1].
    public var alphaUp: Double = 0.4
    /// Consecutive worse reports needed before the tier drops, ≥ 1.
    public var downDwell: Int = 1
    /// Consecutive better reports needed before the tier rises, ≥ 1.
    public var upDwell: Int = 2
    /// Reports this soon after a connection starts are cold (ms, ≥ 0).
    public var coldStartMs: Int64 = 4000
    /// A longer silence between warm reports resets the tier to unknown (ms, ≥ 0).
    public var gapMs: Int64 = 10000
    /// Which MOS drives the tier.
    public var mos: MOSSource = .sdk
    /// Parameters of the E-model MOS.
    public var emodel: EModelParams = EModelParams()

    /// The defaults of the spec.
    public init() {}
}

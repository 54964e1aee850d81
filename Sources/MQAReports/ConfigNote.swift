import MQABase
import MQAAnalysis

/// The tier config a report was made under, where it is not the defaults:
/// the same meeting read 35 incidents under a tuned `--config` and 36
/// under the defaults, and nothing on a shared report told them apart.
enum ConfigNote {
    /// `hysteresis 0.2, upDwell 3`: the keys that differ from the
    /// defaults, in the spec's order; nil for the defaults.
    static func differences(_ config: TierConfig) -> String? {
        let changed = config.changedKeys
        guard !changed.isEmpty else { return nil }
        return changed.map { "\($0.name) \($0.value.rendered())" }.joined(separator: ", ")
    }

    /// One sentence for md and html; nil under the defaults.
    static func sentence(_ config: TierConfig) -> String? {
        differences(config).map { "Tier config (--config): \($0); the other keys at their defaults." }
    }
}

import MQABase
import MQAAnalysis

/// The tier config a report was made under, where it is not the defaults:
/// the same meeting read 35 incidents under a tuned `--config` and 36
/// under the defaults, and nothing on a shared report told them apart.
enum ConfigNote {
    /// `hysteresis 0.2, upDwell 3, emodel.bpl 30, mos emodel`: the keys
    /// that differ from the defaults, in the spec's order (an object's own
    /// keys by name, a string bare, as the tune CSV writes it); nil for
    /// the defaults.
    static func differences(_ changed: [(name: String, value: JSON)]) -> String? {
        guard !changed.isEmpty else { return nil }
        let defaults: [String: JSON]
        if case .object(let fields) = TierConfig().json { defaults = Dictionary(fields, uniquingKeysWith: { a, _ in a }) } else { defaults = [:] }
        func shown(_ v: JSON) -> String { if case .string(let s) = v { s } else { v.rendered() } }
        var parts: [String] = []
        for (name, value) in changed {
            if case .object(let inner) = value, case .object(let old)? = defaults[name] {
                let was = Dictionary(old, uniquingKeysWith: { a, _ in a })
                parts += inner.filter { was[$0.0] != $0.1 }.map { "\(name).\($0.0) \(shown($0.1))" }
            } else {
                parts.append("\(name) \(shown(value))")
            }
        }
        return parts.joined(separator: ", ")
    }

    /// One sentence for md and html; nil under the defaults.
    static func sentence(_ config: TierConfig) -> String? {
        let changed = config.changedKeys
        guard let text = differences(changed) else { return nil }
        let all = changed.count == TierConfig.keyCount
        return "Tier config (--config): \(text)" + (all ? "." : "; the other keys at their defaults.")
    }

    /// A sweep's `--config`: the values it gives the keys the grid leaves
    /// out (`gridKeys` aside); empty where those are the defaults.
    static func baseParagraph(_ base: TierConfig, gridKeys: [String]) -> String {
        differences(base.changedKeys.filter { !gridKeys.contains($0.name) })
            .map { "The keys the grid leaves out are --config's: \($0).\n\n" } ?? ""
    }

    /// The sentence as a markdown paragraph; empty under the defaults.
    static func paragraph(_ config: TierConfig) -> String {
        sentence(config).map { $0 + "\n\n" } ?? ""
    }

    /// The sentence as an html paragraph; empty under the defaults.
    static func htmlParagraph(_ config: TierConfig) -> String {
        sentence(config).map { "<p>\($0.html)</p>\n" } ?? ""
    }
}

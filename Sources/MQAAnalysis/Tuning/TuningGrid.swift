import Foundation
import MQABase
import MQAModel

/// A tuning grid (`mqa tune --grid FILE`): for some config keys, a list of
/// candidate values; the sweep is their cartesian product, every other key
/// at its default.
public struct TuningGrid: Sendable {
    /// One key's candidates, each held as a whole default config with only
    /// that key changed (so a candidate is validated exactly as a config
    /// file's value would be).
    public struct Axis: Sendable {
        public var key: String
        public var candidates: [TierConfig]
    }

    /// Axes in the spec's key order.
    public private(set) var axes: [Axis]

    /// Larger products are refused: a typo such as a 1000-value list times a
    /// few others would otherwise run for hours.
    public static let maxConfigs = 100_000

    /// Parses a grid file: a JSON object mapping config keys to non-empty
    /// lists of candidates (`thresholds`: a list of 4-number lists;
    /// `emodel`: a list of objects with any of `ie`, `bpl`). Errors name the
    /// key and, for a bad candidate, its 1-based position.
    public static func parse(_ data: Data) throws(TierConfigError) -> TuningGrid {
        let object = try TierConfig.jsonObject(data, source: "grid")
        var axes: [Axis] = []
        for key in object.keys.sorted() {
            guard TierConfig.keys.contains(key) else {
                throw TierConfigError(source: "grid", key: key,
                                      message: "unknown key (known: \(TierConfig.keys.joined(separator: ", ")))")
            }
            guard let list = object[key] as? [Any], !list.isEmpty else {
                throw TierConfigError(source: "grid", key: key,
                                      message: "must be a non-empty list of candidate values, got \(JSONValue.describe(object[key]!))")
            }
            var candidates: [TierConfig] = []
            for (n, value) in list.enumerated() {
                var config = TierConfig()
                do {
                    try config.set(key, to: value, source: "grid")
                } catch {
                    throw TierConfigError(source: "grid", key: error.key,
                                          message: "candidate \(n + 1): \(error.message)")
                }
                candidates.append(config)
            }
            axes.append(Axis(key: key, candidates: candidates))
        }
        axes.sort { TierConfig.keys.firstIndex(of: $0.key)! < TierConfig.keys.firstIndex(of: $1.key)! }
        let grid = TuningGrid(axes: axes)
        let size = grid.axes.reduce(1) { $0 * Double($1.candidates.count) }
        guard size <= Double(maxConfigs) else {
            throw TierConfigError(source: "grid", key: nil,
                                  message: "\(JSON.number(size)) configs, more than the \(maxConfigs) allowed")
        }
        return grid
    }

    /// A grid built in code.
    public init(axes: [Axis]) { self.axes = axes }

    /// What of `config` a sweep on it as base uses: the config with the
    /// keys the grid names at their defaults, since a key the grid names
    /// takes its candidates whole (an `emodel` candidate's missing
    /// sub-keys are the defaults', as in a config file). Two bases that
    /// differ only there give the same configs.
    public func leftOut(of config: TierConfig) -> TierConfig {
        var c = config
        for axis in axes { c.copy(axis.key, from: TierConfig()) }
        return c
    }

    /// The cartesian product, in "grid order": keys in the spec's order, the
    /// last key varying fastest, each key's candidates in file order; the
    /// keys the grid leaves out are `base`'s (`--config`, else the
    /// defaults). An empty grid gives `base` alone.
    public func configs(base: TierConfig = TierConfig()) -> [TierConfig] {
        var out = [base]
        for axis in axes {
            var next: [TierConfig] = []
            next.reserveCapacity(out.count * axis.candidates.count)
            for base in out {
                for candidate in axis.candidates {
                    var c = base
                    c.copy(axis.key, from: candidate)
                    next.append(c)
                }
            }
            out = next
        }
        return out
    }
}

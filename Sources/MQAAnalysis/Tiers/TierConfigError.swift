import MQABase
import MQAModel

/// A rejected tier config or tuning grid. The description names the key so
/// that a typo or a bad value is found at once, e.g.
/// `config key "alphaUp": must be in (0, 1], got 0`.
public struct TierConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `"config"` for a config file, `"grid"` for a tuning grid.
    public var source: String
    /// The offending key (`"emodel.bpl"` for a nested one); `nil` when the
    /// document as a whole is bad (not JSON, not an object).
    public var key: String?
    /// What is wrong.
    public var message: String

    public init(source: String = "config", key: String?, message: String) {
        self.source = source
        self.key = key
        self.message = message
    }

    public var description: String {
        if let key { return "\(source) key \"\(key)\": \(message)" }
        return "\(source): \(message)"
    }
}

extension JSON {
    /// A number rounded to `places` decimals (half away from zero), for
    /// figures whose meaning ends there: a mean MOS to 0.01, a ratio to
    /// 0.0001. JSON then reads `3.81`, not `3.8130434782608686`. Exact
    /// figures (counts, ms, logged values) are never rounded.
    public static func rounded(_ x: Double, places: Int) -> JSON {
        x.isFinite ? .double(roundedValue(x, places: places)) : .null
    }

    /// The number `rounded` writes: `x` to `places` decimals.
    public static func roundedValue(_ x: Double, places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        // Past 2⁵³ a double is whole already, and scaling it may overflow
        // to infinity (written as null, "no value": a mean of 1.7e308 ms).
        let scaled = x * scale
        return scaled.isFinite ? scaled.rounded() / scale : x
    }

    /// `rounded`, or null.
    public static func rounded(_ x: Double?, places: Int) -> JSON { x.map { rounded($0, places: places) } ?? .null }

    /// Decimals of each kind of derived figure, said once: what every JSON
    /// output of mqa rounds to.
    public enum Places {
        /// Means of MOS and of loss in percent.
        public static let mos = 2, percent = 2
        /// MOS percentiles: each is one report's MOS, logged by the SDK (two
        /// decimals, kept as they are) or derived by the E-model
        /// (4.2539507025532455 reads 4.254).
        public static let mosValue = 4
        /// Means of ms and kbps figures.
        public static let ms = 1, kbps = 1
        /// Ratios and shares in 0…1 (stall ratio, precision, recall, F1).
        public static let ratio = 4
        /// Rates per hour.
        public static let perHour = 2
    }
}

extension JSON {
    /// The object with `"schema": name` as its first key (every JSON output
    /// of mqa carries one: `mqa.<name>/<version>`); any other value as it is.
    public func withSchema(_ name: String) -> JSON {
        guard case .object(let fields) = self else { return self }
        return .object([("schema", .string(name))] + fields.filter { $0.0 != "schema" })
    }
}

import Foundation

// Reading a tier config from JSON. `JSONSerialization` is enough for a file
// this small; the only care needed is telling JSON booleans from numbers,
// which Foundation hands back as the same `NSNumber` class family.

extension TierConfig {
    /// Parses a config file: a JSON object giving any subset of the keys; the
    /// others keep their defaults. Unknown keys are rejected (a misspelt key
    /// must not silently leave the default in place), as is every invalid
    /// value, with an error naming the key.
    public static func parse(_ data: Data) throws(TierConfigError) -> TierConfig {
        let object = try jsonObject(data, source: "config")
        var config = TierConfig()
        // Sorted so that, with several bad keys, the same one is reported every run.
        for key in object.keys.sorted() {
            try config.set(key, to: object[key]!, source: "config")
        }
        return config
    }

    /// `parse(_:)` over raw bytes.
    public static func parse(bytes: [UInt8]) throws(TierConfigError) -> TierConfig {
        try parse(Data(bytes))
    }

    /// Checks every field, as `parse` does, for a config built in code.
    public func validate() throws(TierConfigError) {
        func check(_ key: String, _ problem: String?) throws(TierConfigError) {
            if let problem { throw TierConfigError(key: key, message: problem) }
        }
        try check("thresholds", TierConfig.thresholdsProblem(thresholds))
        try check("hysteresis", TierConfig.hysteresisProblem(hysteresis))
        try check("alphaDown", TierConfig.alphaProblem(alphaDown))
        try check("alphaUp", TierConfig.alphaProblem(alphaUp))
        try check("downDwell", TierConfig.dwellProblem(Double(downDwell)))
        try check("upDwell", TierConfig.dwellProblem(Double(upDwell)))
        try check("coldStartMs", TierConfig.durationProblem(Double(coldStartMs)))
        try check("gapMs", TierConfig.durationProblem(Double(gapMs)))
        try check("emodel.ie", TierConfig.ieProblem(emodel.ie))
        try check("emodel.bpl", TierConfig.bplProblem(emodel.bpl))
    }

    /// Sets one top-level key from a value `JSONSerialization` produced,
    /// validating it. Shared by config files and tuning grids (`source`
    /// says which one the error message should name).
    mutating func set(_ key: String, to value: Any, source: String) throws(TierConfigError) {
        func fail(_ k: String, _ message: String) -> TierConfigError {
            TierConfigError(source: source, key: k, message: message)
        }
        func number(_ k: String, _ problem: (Double) -> String?) throws(TierConfigError) -> Double {
            guard let x = JSONValue.number(value) else {
                throw fail(k, "must be a number, got \(JSONValue.describe(value))")
            }
            if let p = problem(x) { throw fail(k, p) }
            return x
        }
        switch key {
        case "thresholds":
            guard let items = value as? [Any], items.count == 4 else {
                throw fail(key, "must be a list of 4 numbers, got \(JSONValue.describe(value))")
            }
            var values: [Double] = []
            for item in items {
                guard let x = JSONValue.number(item) else {
                    throw fail(key, "must be a list of 4 numbers, got \(JSONValue.describe(value))")
                }
                values.append(x)
            }
            if let p = TierConfig.thresholdsProblem(values) { throw fail(key, p) }
            thresholds = values
        case "hysteresis": hysteresis = try number(key, TierConfig.hysteresisProblem)
        case "alphaDown": alphaDown = try number(key, TierConfig.alphaProblem)
        case "alphaUp": alphaUp = try number(key, TierConfig.alphaProblem)
        case "downDwell": downDwell = try Int(number(key, TierConfig.dwellProblem))
        case "upDwell": upDwell = try Int(number(key, TierConfig.dwellProblem))
        case "coldStartMs": coldStartMs = try Int64(number(key, TierConfig.durationProblem))
        case "gapMs": gapMs = try Int64(number(key, TierConfig.durationProblem))
        case "mos":
            guard let s = value as? String, let m = MOSSource(rawValue: s) else {
                throw fail(key, "must be \"sdk\" or \"emodel\", got \(JSONValue.describe(value))")
            }
            mos = m
        case "emodel":
            guard let object = value as? [String: Any] else {
                throw fail(key, "must be an object {\"ie\": …, \"bpl\": …}, got \(JSONValue.describe(value))")
            }
            var params = emodel
            for inner in object.keys.sorted() {
                let v = object[inner]!
                let k = "emodel.\(inner)"
                guard inner == "ie" || inner == "bpl" else {
                    throw fail(k, "unknown key (known: ie, bpl)")
                }
                guard let x = JSONValue.number(v) else {
                    throw fail(k, "must be a number, got \(JSONValue.describe(v))")
                }
                let problem = inner == "ie" ? TierConfig.ieProblem(x) : TierConfig.bplProblem(x)
                if let problem { throw fail(k, problem) }
                if inner == "ie" { params.ie = x } else { params.bpl = x }
            }
            emodel = params
        default:
            throw fail(key, "unknown key (known: \(TierConfig.keys.joined(separator: ", ")))")
        }
    }

    // One check per kind of value, returning the message or `nil` when fine.
    // Shared by `set` and `validate` so both say the same thing.

    static func thresholdsProblem(_ t: [Double]) -> String? {
        let got = "got [" + t.map { JSON.number($0) }.joined(separator: ", ") + "]"
        guard t.count == 4 else { return "must be a list of 4 numbers, \(got)" }
        guard t.allSatisfy(\.isFinite) else { return "must be finite numbers, \(got)" }
        guard t[0] > t[1], t[1] > t[2], t[2] > t[3] else { return "must be strictly decreasing, \(got)" }
        return nil
    }

    static func hysteresisProblem(_ x: Double) -> String? {
        x.isFinite && x >= 0 ? nil : "must be a number >= 0, got \(JSON.number(x))"
    }

    static func alphaProblem(_ x: Double) -> String? {
        x > 0 && x <= 1 ? nil : "must be in (0, 1], got \(JSON.number(x))"
    }

    /// Dwells are counts of reports; capped so that no counter can overflow.
    static func dwellProblem(_ x: Double) -> String? {
        x >= 1 && x <= 1_000_000_000 && x == x.rounded() ? nil
            : "must be an integer from 1 to 1000000000, got \(JSON.number(x))"
    }

    /// Times are integer ms (tier changes are emitted at `lastTs + gapMs`,
    /// which must be a whole ms); capped at 2^53 so `ts + x` cannot overflow.
    static func durationProblem(_ x: Double) -> String? {
        x >= 0 && x <= 9_007_199_254_740_992 && x == x.rounded() ? nil
            : "must be an integer number of ms from 0 to 9007199254740992, got \(JSON.number(x))"
    }

    static func ieProblem(_ x: Double) -> String? {
        x >= 0 && x <= 95 ? nil : "must be in [0, 95], got \(JSON.number(x))"
    }

    /// `bpl` divides `loss + bpl`; 0 would give 0/0 at zero loss.
    static func bplProblem(_ x: Double) -> String? {
        x.isFinite && x > 0 ? nil : "must be a number > 0, got \(JSON.number(x))"
    }

    /// Parses a JSON document that must be an object.
    static func jsonObject(_ data: Data, source: String) throws(TierConfigError) -> [String: Any] {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw TierConfigError(source: source, key: nil, message: "not valid JSON")
        }
        guard let object = parsed as? [String: Any] else {
            throw TierConfigError(source: source, key: nil, message: "must be a JSON object, got \(JSONValue.describe(parsed))")
        }
        return object
    }
}

/// Helpers over the `Any` values `JSONSerialization` returns.
enum JSONValue {
    /// A JSON number as a `Double`; `nil` for booleans and non-numbers.
    /// Foundation gives booleans as `NSNumber` too, with Objective-C type "c".
    static func number(_ v: Any) -> Double? {
        guard let n = v as? NSNumber, !(v is String) else { return nil }
        if String(cString: n.objCType) == "c" { return nil }
        return n.doubleValue
    }

    /// Short text of a value for error messages.
    static func describe(_ v: Any) -> String {
        if let s = v as? String {
            var out = ""
            JSON.quote(s, into: &out)
            return out
        }
        if let n = v as? NSNumber {
            if String(cString: n.objCType) == "c" { return n.boolValue ? "true" : "false" }
            return JSON.number(n.doubleValue)
        }
        if let a = v as? [Any] { return "[" + a.map(describe).joined(separator: ", ") + "]" }
        if v is [String: Any] { return "an object" }
        if v is NSNull { return "null" }
        return "\(v)"
    }
}

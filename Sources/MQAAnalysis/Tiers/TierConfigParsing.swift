import Foundation
import MQABase
import MQAModel

// Reading a tier config from JSON, numbers to the nearest double
// (`ExactJSONReader`: tiers.md is exact to the bit); the care needed is
// telling JSON booleans from numbers, both handed back as `NSNumber`.

extension TierConfig {
    /// Parses a config file: a JSON object giving any subset of the keys; the
    /// others keep their defaults. Unknown keys are rejected (a misspelt key
    /// must not silently leave the default in place), as is every invalid
    /// value, with an error naming the key.
    public static func parse(_ data: Data) throws(TierConfigError) -> TierConfig {
        try parse(object: try jsonObject(data, source: "config"), source: "config")
    }

    /// A config given as a JSON object inside another file (partials
    /// carry the config they were made under), checked as a config file.
    static func parse(object: [String: Any], source: String) throws(TierConfigError) -> TierConfig {
        var config = TierConfig()
        // Sorted so that, with several bad keys, the same one is reported every run.
        for key in object.keys.sorted() {
            try config.set(key, to: object[key]!, source: source)
        }
        return config
    }

    /// `parse(_:)` over raw bytes.
    public static func parse(bytes: [UInt8]) throws(TierConfigError) -> TierConfig {
        try parse(Data(bytes))
    }

    /// The config a partials file carries under `key`: present exactly in
    /// its version `withKey` (an older mqa refuses that version rather
    /// than read the file as the defaults'), the defaults otherwise.
    /// Throws the problem in words, for the file's own error.
    static func carried(in object: [String: Any], key: String, version: Int64, withKey: Int64) throws(CarriedConfigProblem) -> TierConfig {
        guard version == withKey else {
            if object[key] != nil { throw CarriedConfigProblem("\"\(key)\" in a file of version \(version) (only version \(withKey) has one)") }
            return TierConfig()
        }
        guard let given = object[key] else { throw CarriedConfigProblem("missing \"\(key)\" (version \(withKey))") }
        guard let fields = given as? [String: Any] else { throw CarriedConfigProblem("\"\(key)\" is not an object") }
        do { return try parse(object: fields, source: key) } catch { throw CarriedConfigProblem("\(error)") }
    }

    // One check per kind of value, returning the message or `nil` when fine.
    // Shared by parsing and `validate` (through `fields`) so both say the same thing.

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
            parsed = try ExactJSONReader.parse(data, uniqueKeys: true)
        } catch {
            // Where and why: "number out of range at byte 12" (a 1e400,
            // valid JSON syntax) tells more than "not valid JSON".
            throw TierConfigError(source: source, key: nil, message: "not valid JSON: \(error)")
        }
        guard let object = parsed as? [String: Any] else {
            throw TierConfigError(source: source, key: nil, message: "must be a JSON object, got \(JSONValue.describe(parsed))")
        }
        return object
    }
}

/// Helpers over the `Any` values `ExactJSONReader` returns (those of `JSONSerialization`).
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

/// What is wrong with the config a partials file carries.
struct CarriedConfigProblem: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

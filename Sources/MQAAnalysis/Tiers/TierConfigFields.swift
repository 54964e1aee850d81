import MQABase
import MQAModel

/// One key of the tier config: its JSON name, where it lives in
/// `TierConfig`, and how a value is read, checked and written.
///
/// `TierConfig.fields` is the only list of the keys. Parsing a config file,
/// `validate()`, the JSON form, the tuning grid's axes (which keys exist,
/// their order, copying one key between configs) all walk it, so a new key
/// is one row here and one stored property.
struct TierConfigField {
    /// What is wrong with a value: the key (`emodel.bpl` for a nested one)
    /// and the message. The caller adds whether it came from a config file
    /// or a grid.
    struct Problem: Error {
        var key: String
        var message: String
    }

    let name: String
    /// The key's value in `config`, as JSON.
    let json: (TierConfig) -> JSON
    /// Sets the key from a value `JSONSerialization` produced (or `ExactJSONReader`), validated.
    let set: (inout TierConfig, Any) throws(Problem) -> Void
    /// What is wrong with the key's value in `config`; nil when it is valid.
    let problem: (TierConfig) -> Problem?
    /// Copies the key's value from another config.
    let copy: (inout TierConfig, TierConfig) -> Void

    /// A key at `path`: `parse` reads a JSON value (given the current value,
    /// for nested objects that set only some of their keys), `check` finds
    /// what is wrong with a value built in code.
    init<Value>(_ name: String, _ path: WritableKeyPath<TierConfig, Value>, json: @escaping (Value) -> JSON,
                parse: @escaping (Any, Value) throws(Problem) -> Value, check: @escaping (Value) -> Problem?) {
        self.name = name
        self.json = { json($0[keyPath: path]) }
        self.set = { (config: inout TierConfig, value: Any) throws(Problem) in
            config[keyPath: path] = try parse(value, config[keyPath: path])
        }
        self.problem = { check($0[keyPath: path]) }
        self.copy = { $0[keyPath: path] = $1[keyPath: path] }
    }

    /// A number key: any JSON number, checked as a `Double` by `rule` (which
    /// returns the message, nil when fine), stored as `Value`.
    static func number<Value>(_ name: String, _ path: WritableKeyPath<TierConfig, Value>,
                              _ rule: @escaping (Double) -> String?,
                              from: @escaping (Double) -> Value, to: @escaping (Value) -> Double,
                              json: @escaping (Value) -> JSON) -> TierConfigField {
        TierConfigField(name, path, json: json,
            parse: { (value: Any, _: Value) throws(Problem) -> Value in
                guard let x = JSONValue.number(value) else {
                    throw Problem(key: name, message: "must be a number, got \(JSONValue.describe(value))")
                }
                if let message = rule(x) { throw Problem(key: name, message: message) }
                return from(x)
            },
            check: { v in rule(to(v)).map { Problem(key: name, message: $0) } })
    }

    static func double(_ name: String, _ path: WritableKeyPath<TierConfig, Double>,
                       _ rule: @escaping (Double) -> String?) -> TierConfigField {
        number(name, path, rule, from: { $0 }, to: { $0 }, json: { .double($0) })
    }

    static func count(_ name: String, _ path: WritableKeyPath<TierConfig, Int>,
                      _ rule: @escaping (Double) -> String?) -> TierConfigField {
        number(name, path, rule, from: { Int($0) }, to: { Double($0) }, json: { .int(Int64($0)) })
    }

    static func milliseconds(_ name: String, _ path: WritableKeyPath<TierConfig, Int64>,
                             _ rule: @escaping (Double) -> String?) -> TierConfigField {
        number(name, path, rule, from: { Int64($0) }, to: { Double($0) }, json: { .int($0) })
    }
}

extension TierConfig {
    /// Every key in the spec's order: also the JSON output order and the
    /// order in which a tuning grid's product is enumerated.
    // Built once, never changed: the closures capture only key paths.
    nonisolated(unsafe) static let fields: [TierConfigField] = [
        TierConfigField("thresholds", \.thresholds, json: { .array($0.map { .double($0) }) },
            parse: { (value: Any, _: [Double]) throws(TierConfigField.Problem) -> [Double] in
                let shape = TierConfigField.Problem(
                    key: "thresholds", message: "must be a list of 4 numbers, got \(JSONValue.describe(value))")
                guard let items = value as? [Any], items.count == 4 else { throw shape }
                var values: [Double] = []
                for item in items {
                    guard let x = JSONValue.number(item) else { throw shape }
                    values.append(x)
                }
                if let message = thresholdsProblem(values) { throw TierConfigField.Problem(key: "thresholds", message: message) }
                return values
            },
            check: { thresholdsProblem($0).map { TierConfigField.Problem(key: "thresholds", message: $0) } }),
        .double("hysteresis", \.hysteresis, hysteresisProblem),
        .double("alphaDown", \.alphaDown, alphaProblem),
        .double("alphaUp", \.alphaUp, alphaProblem),
        .count("downDwell", \.downDwell, dwellProblem),
        .count("upDwell", \.upDwell, dwellProblem),
        .milliseconds("coldStartMs", \.coldStartMs, durationProblem),
        .milliseconds("gapMs", \.gapMs, durationProblem),
        TierConfigField("mos", \.mos, json: { .string($0.rawValue) },
            parse: { (value: Any, _: MOSSource) throws(TierConfigField.Problem) -> MOSSource in
                guard let s = value as? String, let m = MOSSource(rawValue: s) else {
                    let names = MOSSource.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
                    throw TierConfigField.Problem(key: "mos", message: "must be \(names), got \(JSONValue.describe(value))")
                }
                return m
            },
            check: { _ in nil }),
        TierConfigField("emodel", \.emodel, json: { .object([("ie", .double($0.ie)), ("bpl", .double($0.bpl))]) },
            parse: { (value: Any, current: EModelParams) throws(TierConfigField.Problem) -> EModelParams in
                guard let object = value as? [String: Any] else {
                    throw TierConfigField.Problem(
                        key: "emodel", message: "must be an object {\"ie\": …, \"bpl\": …}, got \(JSONValue.describe(value))")
                }
                var params = current
                for inner in object.keys.sorted() {
                    let v = object[inner]!
                    let key = "emodel.\(inner)"
                    guard inner == "ie" || inner == "bpl" else {
                        throw TierConfigField.Problem(key: key, message: "unknown key (known: ie, bpl)")
                    }
                    guard let x = JSONValue.number(v) else {
                        throw TierConfigField.Problem(key: key, message: "must be a number, got \(JSONValue.describe(v))")
                    }
                    if let message = inner == "ie" ? ieProblem(x) : bplProblem(x) {
                        throw TierConfigField.Problem(key: key, message: message)
                    }
                    if inner == "ie" { params.ie = x } else { params.bpl = x }
                }
                return params
            },
            check: { p in
                if let message = ieProblem(p.ie) { return TierConfigField.Problem(key: "emodel.ie", message: message) }
                return bplProblem(p.bpl).map { TierConfigField.Problem(key: "emodel.bpl", message: $0) }
            }),
    ]

    /// The top-level keys in the spec's order.
    public static let keys: [String] = fields.map(\.name)

    /// The row of `key`, nil for an unknown key.
    static func field(_ key: String) -> TierConfigField? { fields.first { $0.name == key } }

    /// The full config as JSON, every key in the spec's order.
    public var json: JSON { .object(TierConfig.fields.map { ($0.name, $0.json(self)) }) }

    /// How many keys a config has.
    public static var keyCount: Int { fields.count }

    /// The keys whose values differ from the defaults, in the spec's order,
    /// with their values as JSON (empty for the defaults).
    public var changedKeys: [(name: String, value: JSON)] {
        let defaults = TierConfig()
        return TierConfig.fields.compactMap { f in f.json(self) == f.json(defaults) ? nil : (f.name, f.json(self)) }
    }

    /// The whole config as one JSON member named `key`, only where it is
    /// not the defaults (outputs made under the defaults keep their
    /// shape): a report's `config`, a sweep's `base`, a partials file's.
    public func jsonMember(_ key: String) -> [(String, JSON)] {
        changedKeys.isEmpty ? [] : [(key, json)]
    }

    /// Checks every field, as `parse` does, for a config built in code.
    public func validate() throws(TierConfigError) {
        for field in TierConfig.fields {
            if let p = field.problem(self) { throw TierConfigError(key: p.key, message: p.message) }
        }
    }

    /// Sets one top-level key from a value `ExactJSONReader` produced,
    /// validating it. Shared by config files and tuning grids (`source`
    /// says which one the error message should name).
    mutating func set(_ key: String, to value: Any, source: String) throws(TierConfigError) {
        guard let field = TierConfig.field(key) else {
            throw TierConfigError(source: source, key: key, message: "unknown key (known: \(TierConfig.keys.joined(separator: ", ")))")
        }
        do {
            try field.set(&self, value)
        } catch {
            throw TierConfigError(source: source, key: error.key, message: error.message)
        }
    }

    /// Copies one top-level key's value from `other`.
    mutating func copy(_ key: String, from other: TierConfig) {
        guard let field = TierConfig.field(key) else { preconditionFailure("unknown config key \(key)") }
        field.copy(&self, other)
    }
}

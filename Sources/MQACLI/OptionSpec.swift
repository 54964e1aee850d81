/// A bad command line: exit 64 with the message and the command's usage.
public struct UsageError: Error, CustomStringConvertible {
    public var message: String
    public var usage: String?
    public var description: String { message }

    public init(_ message: String, usage: String? = nil) {
        self.message = message
        self.usage = usage
    }
}

/// Why an option's text is not a value of its type ("must be …"); the
/// parser adds the option's name and the text given.
struct InvalidValue: Error {
    var reason: String
}

/// The untyped declaration of one option, all that the parser and the help
/// read. Commands never build one directly: they declare an `Option<Value>`.
/// Sendable, as commands keep their declarations in statics.
struct OptionSpec: Sendable {
    /// Every name, short first (`-o`, `--out`); the last is the long one.
    var names: [String]
    /// Placeholder of the value (`FILE`), `nil` for a flag.
    var valueName: String?
    var help: String
    var isRequired = false
    var isRepeatable = false
    /// The allowed words of a choice, listed in the help and in errors.
    var choices: [String] = []
    /// What the help says is used when the option is absent.
    var defaultText: String?
    /// What a command reads when the option is absent (already typed).
    var defaultValue: (any Sendable)?
    /// A `--format` that, when absent, is told by the extension of `--out`.
    var followsOutExtension = false
    /// The text of one occurrence converted (and validated) to the typed value.
    var convert: @Sendable (String) throws -> Any

    /// The long name: what errors and typed reads use.
    var primary: String { names.last! }
    var isFlag: Bool { valueName == nil }
    /// `--out <file>` as in usage lines and errors.
    var synopsis: String { primary + (valueName.map { " <\($0.lowercased())>" } ?? "") }
}

/// Anything a command lists among its options.
protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}

/// One option with the Swift type a command reads it as: declared once,
/// it gives the parser its names and conversion, the help its text, and
/// the command `args.get(option)` of type `Value`.
struct Option<Value: Sendable>: OptionDeclaration {
    var spec: OptionSpec
    /// The typed value of the occurrences given (in order, already converted).
    var read: @Sendable ([Any]) -> Value

    /// The default a factory was given, stored in the spec with its help text.
    fileprivate static func single(_ spec: OptionSpec, default value: Value?, defaultText: String?) -> Option {
        var spec = spec
        spec.defaultValue = value
        spec.defaultText = defaultText ?? value.map { "\($0)" }
        return Option(spec: spec, read: { $0.last as! Value })
    }
}

extension Option where Value == Bool {
    /// A flag: `true` when given, `false` otherwise.
    static func flag(_ names: String..., help: String) -> Option {
        let spec = OptionSpec(names: names, valueName: nil, help: help, defaultValue: false, convert: { _ in true })
        return Option(spec: spec, read: { !$0.isEmpty })
    }
}

extension Option where Value == String {
    /// Free text, checked by `validate` (which returns the problem, or nil).
    static func string(_ names: String..., value: String, help: String, required: Bool = false,
                       default: String? = nil, defaultText: String? = nil,
                       validate: (@Sendable (String) -> String?)? = nil) -> Option {
        let spec = OptionSpec(names: names, valueName: value, help: help, isRequired: required) { text in
            if let problem = validate?(text) { throw InvalidValue(reason: problem) }
            return text
        }
        return single(spec, default: `default`, defaultText: defaultText)
    }

    /// A file or folder path; `-` is a value too (standard output for `--out`).
    static func path(_ names: String..., value: String, help: String, required: Bool = false,
                     default: String? = nil, defaultText: String? = nil) -> Option {
        let spec = OptionSpec(names: names, valueName: value, help: help, isRequired: required) { text in
            if text.isEmpty { throw InvalidValue(reason: "must be a path") }
            return text
        }
        return single(spec, default: `default`, defaultText: defaultText)
    }

    /// One of fixed words, matched in any letter case; the value is the
    /// word as declared. With `followsOut`, an absent option is told by the
    /// extension of `--out` when that names one of the words.
    static func choice(_ names: String..., value: String = "FORMAT", help: String, _ words: [String],
                       default: String? = nil, followsOut: Bool = false) -> Option {
        var spec = OptionSpec(names: names, valueName: value, help: help, choices: words) { text in
            guard let word = words.first(where: { $0.lowercased() == text.lowercased() }) else {
                throw InvalidValue(reason: "must be one of \(words.joined(separator: ", "))")
            }
            return word
        }
        spec.followsOutExtension = followsOut
        return single(spec, default: `default`, defaultText: nil)
    }
}

extension Option where Value: FixedWidthInteger {
    /// A whole number in `range`.
    static func integer(_ names: String..., value: String, help: String, range: ClosedRange<Value>,
                        default: Value? = nil, defaultText: String? = nil) -> Option {
        // "≥ 1" reads better than "1...9223372036854775807".
        let allowed = range.upperBound == Value.max ? "≥ \(range.lowerBound)" : "in \(range.lowerBound)...\(range.upperBound)"
        let spec = OptionSpec(names: names, valueName: value, help: help) { text in
            guard let v = Value(text), range.contains(v) else { throw InvalidValue(reason: "must be a whole number \(allowed)") }
            return v
        }
        return single(spec, default: `default`, defaultText: defaultText)
    }
}

extension Option where Value == [String] {
    /// Given any number of times; the values in command-line order, each
    /// checked by `validate`.
    static func repeatable(_ names: String..., value: String, help: String,
                           validate: (@Sendable (String) -> String?)? = nil) -> Option {
        var spec = OptionSpec(names: names, valueName: value, help: help, isRepeatable: true) { text in
            if let problem = validate?(text) { throw InvalidValue(reason: problem) }
            return text
        }
        spec.defaultValue = [String]()
        return Option(spec: spec, read: { $0.map { $0 as! String } })
    }
}

/// A choice whose words stand for values of another type (a tier, say).
extension Option {
    static func choice(_ names: String..., value: String = "FORMAT", help: String, _ words: [(String, Value)],
                       default: Value? = nil, defaultText: String? = nil, followsOut: Bool = false) -> Option {
        var spec = OptionSpec(names: names, valueName: value, help: help, choices: words.map(\.0)) { text in
            guard let match = words.first(where: { $0.0.lowercased() == text.lowercased() }) else {
                throw InvalidValue(reason: "must be one of \(words.map(\.0).joined(separator: ", "))")
            }
            return match.1
        }
        spec.followsOutExtension = followsOut
        return single(spec, default: `default`, defaultText: defaultText)
    }
}

extension Option {
    /// The same option, which the command line must give.
    var required: Option {
        var o = self
        o.spec.isRequired = true
        return o
    }
}

import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

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

/// One option of a command: a flag, or an option taking a value.
struct OptionSpec {
    var names: [String]
    /// Placeholder of the value (`PATH`), `nil` for a flag.
    var value: String?
    var help: String
    var repeatable = false

    static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(names: names, value: nil, help: help)
    }

    static func option(_ names: String..., value: String, help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(names: names, value: value, help: help, repeatable: repeatable)
    }

    var primary: String { names.last! }
}

/// What a command accepts, from which both parsing and `--help` come, so
/// the help can never drift from the parser.
struct CommandSpec {
    var name: String
    var abstract: String
    var discussion: String? = nil
    /// Positional arguments: (placeholder, help).
    var arguments: [(String, String)] = []
    var minPositionals = 0
    var maxPositionals: Int? = 0
    var options: [OptionSpec] = []

    static let help = OptionSpec.flag("-h", "--help", help: "Show help information.")

    /// Short names for the options people type most, wherever a command has them.
    static let shortNames = ["--out": "-o", "--format": "-f", "--top": "-n"]

    var allOptions: [OptionSpec] {
        options.map { o in
            var o = o
            if let short = CommandSpec.shortNames[o.primary], !o.names.contains(short) { o.names.insert(short, at: 0) }
            return o
        } + [CommandSpec.help]
    }

    var usage: String {
        var parts = ["mqa", name]
        for o in options {
            parts.append(o.value.map { "[\(o.primary) <\($0.lowercased())>]" } ?? "[\(o.primary)]")
        }
        for (placeholder, _) in arguments { parts.append("<\(placeholder.lowercased())>") }
        return parts.joined(separator: " ")
    }

    var helpText: String {
        var text = "OVERVIEW: \(abstract)\n"
        if let discussion { text += "\n" + discussion + "\n" }
        text += "\nUSAGE: \(usage)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for (placeholder, help) in arguments { text += CommandSpec.row("<\(placeholder.lowercased())>", help) }
        }
        text += "\nOPTIONS:\n"
        for o in allOptions {
            let label = o.names.joined(separator: ", ") + (o.value.map { " <\($0.lowercased())>" } ?? "")
            text += CommandSpec.row(label, o.help)
        }
        return text
    }

    /// A help row: label in a 26-column gutter, wrapped help text beside it.
    static func row(_ label: String, _ help: String) -> String {
        let gutter = 26
        var lines: [String] = []
        var current = ""
        for word in help.split(separator: " ") {
            if current.count + word.count + 1 > 52 && !current.isEmpty {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        var out = "  " + label
        if label.count + 2 >= gutter {
            out += "\n" + String(repeating: " ", count: gutter)
        } else {
            out += String(repeating: " ", count: gutter - label.count - 2)
        }
        out += lines.joined(separator: "\n" + String(repeating: " ", count: gutter)) + "\n"
        return out
    }

    /// Parses `args` (after the subcommand name).
    func parse(_ args: [String]) throws -> ParsedArguments {
        var parsed = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                parsed.positionals.append(arg)
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            var name = arg
            var inlineValue: String? = nil
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inlineValue = String(arg[arg.index(after: eq)...])
            }
            guard let spec = allOptions.first(where: { $0.names.contains(name) }) else {
                let hint = Suggestion.closest(to: name, among: allOptions.flatMap(\.names)).map { "; did you mean '\($0)'?" } ?? ""
                throw UsageError("unknown option '\(name)'\(hint)", usage: usage)
            }
            if spec.value == nil {
                if inlineValue != nil { throw UsageError("'\(name)' takes no value", usage: usage) }
                parsed.flags.insert(spec.primary)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard i < args.count else { throw UsageError("missing value for '\(name) <\(spec.value!.lowercased())>'", usage: usage) }
                value = args[i]
                i += 1
            }
            if parsed.values[spec.primary] != nil && !spec.repeatable {
                throw UsageError("'\(spec.primary)' given more than once", usage: usage)
            }
            parsed.values[spec.primary, default: []].append(value)
        }
        if parsed.flags.contains("--help") { return parsed }
        if parsed.positionals.count < minPositionals {
            let missing = arguments.map { "<\($0.0.lowercased())>" }.joined(separator: " ")
            throw UsageError("missing expected argument '\(missing)'", usage: usage)
        }
        if let maxPositionals, parsed.positionals.count > maxPositionals {
            throw UsageError("unexpected argument '\(parsed.positionals[maxPositionals])'", usage: usage)
        }
        return parsed
    }
}

/// The parsed command line of one subcommand.
struct ParsedArguments {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func value(_ name: String) -> String? { values[name]?.last }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// An integer option, with a usage error naming the option when it is not one.
    func int(_ name: String, default fallback: Int, range: ClosedRange<Int>, usage: String) throws -> Int {
        guard let text = value(name) else { return fallback }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("'\(name)' must be a whole number in \(range.lowerBound)...\(range.upperBound), got '\(text)'", usage: usage)
        }
        return v
    }

    /// A choice among fixed words, e.g. `--format`, in any letter case.
    /// Without `--format`, the extension of `--out` picks the format when
    /// it names one (`--out report.html` writes HTML).
    func choice(_ name: String, _ allowed: [String], default fallback: String, usage: String) throws -> String {
        guard let text = value(name) else {
            if name == "--format", let out = value("--out"), let dot = out.lastIndex(of: "."), !out[dot...].contains("/") {
                var ext = out[out.index(after: dot)...].lowercased()
                if ext == "htm" { ext = "html" }
                if ext == "markdown" { ext = "md" }
                if ext == "txt" && allowed.contains("text") { ext = "text" }
                if ext == "jsonl" && allowed.contains("ndjson") { ext = "ndjson" }
                if allowed.contains(ext) { return ext }
            }
            return fallback
        }
        guard let match = allowed.first(where: { $0.lowercased() == text.lowercased() }) else {
            throw UsageError("'\(name)' must be one of \(allowed.joined(separator: ", ")), got '\(text)'", usage: usage)
        }
        return match
    }
}

/// "Did you mean …?" for mistyped commands and options.
enum Suggestion {
    /// The candidate closest to `word` by edit distance, when it is close
    /// enough to be a typo (at most 2 edits, or a third of the word).
    static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = max(2, word.count / 3)
        var best: (String, Int)? = nil
        for c in Set(candidates) {
            let d = distance(Array(word.lowercased()), Array(c.lowercased()))
            if d <= limit && (best == nil || d < best!.1 || (d == best!.1 && c < best!.0)) { best = (c, d) }
        }
        return best?.0
    }

    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// `mqa help CMD` and the usage line of errors, both made from the same
/// declarations the parser reads.
extension CommandSpec {
    /// `mqa tiers --meeting <id> [--uid <u>] …`: required options bare,
    /// others in brackets, repeatable ones with `...`.
    var usage: String {
        var parts = ["mqa", name]
        for option in options.map(\.spec) {
            let word = option.synopsis + (option.isRepeatable ? " ..." : "")
            parts.append(option.isRequired ? word : "[\(word)]")
        }
        // The first `minPositionals` are required; the rest (a FILE... read
        // only with --merge, an ID left out with --all) are not.
        for (i, (placeholder, _)) in arguments.enumerated() {
            let word = "<\(placeholder.lowercased())>"
            parts.append(i < minPositionals ? word : "[\(word)]")
        }
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
        for option in allOptions {
            let label = option.names.joined(separator: ", ") + (option.valueName.map { " <\($0.lowercased())>" } ?? "")
            text += CommandSpec.row(label, option.help + CommandSpec.facts(option))
        }
        if !examples.isEmpty {
            text += "\nEXAMPLES:\n"
            for (what, line) in examples { text += "  # \(what)\n  \(line)\n" }
        }
        return text
    }

    /// What the declaration says beyond the help text, so no help text has
    /// to repeat it (and none can get it wrong): ` (required)`,
    /// ` (values: md, json; default: md)`, ` (default: 24)`.
    static func facts(_ option: OptionSpec) -> String {
        var facts: [String] = []
        if option.isRequired { facts.append("required") }
        if !option.choices.isEmpty { facts.append("values:" + glue + option.choices.joined(separator: ", ")) }
        if let value = option.defaultText, !option.isFlag { facts.append("default:" + glue + value) }
        if option.isRepeatable { facts.append("repeatable") }
        return facts.isEmpty ? "" : " (" + facts.joined(separator: "; ") + ")"
    }

    /// A space that the wrapping in `row` never breaks at: `default: md`
    /// stays on one line.
    static let glue = "\u{1}"

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
        let text = lines.joined(separator: "\n" + String(repeating: " ", count: gutter))
        out += String(text.map { String($0) == glue ? " " : $0 }) + "\n"
        return out
    }
}

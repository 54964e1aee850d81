import MQABase
/// The parsed command line of one subcommand: every option's value already
/// converted and checked, read back by the typed `Option` it was declared as.
struct ParsedArguments {
    /// The converted values given, per long name, in command-line order.
    var given: [String: [Any]] = [:]
    /// Values not given but told by another option (`--format` by `--out`).
    var inferred: [String: Any] = [:]
    /// `-o report.pdf`: an extension that names no format, so the default
    /// one is written under it; `(extension, format)`, said on stderr.
    var outFormatFallback: (ext: String, format: String)?
    var positionals: [String] = []
    /// `-h`/`--help` was given: nothing else was checked.
    var wantsHelp = false
    /// The options of the command, by long name: a read of one it does not
    /// declare is a programming error, caught in debug builds.
    var declared: [String: OptionSpec] = [:]

    /// The value given, else the one told by another option, else the default.
    func value<V>(_ option: Option<V>) -> V? {
        let name = option.spec.primary
        assert(declared[name] != nil, "reading '\(name)', which the command does not declare")
        if let values = given[name], !values.isEmpty { return option.read(values) }
        if let value = inferred[name] { return value as? V }
        return option.spec.defaultValue as? V
    }

    /// The value, or a usage error naming the option when it has none: the
    /// parser already refused a missing required option, so this throws only
    /// for options a command needs in some cases (`tune --grid` without `--merge`).
    func get<V>(_ option: Option<V>) throws -> V {
        guard let value = value(option) else { throw UsageError("missing '\(option.spec.synopsis)'") }
        return value
    }

    /// Whether the option was on the command line (a default does not count).
    func isGiven(_ option: any OptionDeclaration) -> Bool {
        !(given[option.spec.primary]?.isEmpty ?? true)
    }

    /// A usage error when `format` is given, or told by the extension of
    /// `--out`, as anything but json: for outputs that are JSON only
    /// (`--partials`). Told by `-o p.csv`, the file would hold JSON under
    /// a name that says CSV.
    func requireJSON(_ format: Option<String>, with flag: String) throws {
        try requireJSON(value(format), format, with: flag)
    }

    func requireJSON<F: RawRepresentable<String>>(_ format: Option<F>, with flag: String) throws {
        try requireJSON(value(format)?.rawValue, format, with: flag)
    }

    private func requireJSON(_ word: String?, _ format: any OptionDeclaration, with flag: String) throws {
        guard let word, word != "json" else { return }
        if isGiven(format) {
            throw UsageError("'--format' must be one of json (with \(flag)), got '\(word)'")
        }
        if inferred[format.spec.primary] != nil, let out = given["--out"]?.last as? String {
            throw UsageError("'--out' \(out) names the format \(word), but \(flag) writes JSON only: name the file .json, or give '--format json'")
        }
    }
}

extension CommandSpec {
    /// Why a command without `--config` has none (cli.md makes it global).
    var configRefusal: String {
        switch name {
        case "demo": "the demo shows the default tier config; run the reports on its store with --config"
        case "query": "named queries read the summaries ingest keeps, which are of the default tier config"
        default: "this command shows nothing that depends on the tier config"
        }
    }

    /// Parses `args` (after the subcommand name): converts and checks every
    /// value, then the required options and the positional count.
    func parse(_ args: [String]) throws -> ParsedArguments {
        let specs = allOptions
        var parsed = ParsedArguments()
        for spec in specs { parsed.declared[spec.primary] = spec }
        // Help wins over any other mistake on the line: who asks for it is
        // looking for what to type.
        let options = args.prefix { $0 != "--" }
        if options.contains("-h") || options.contains("--help") {
            parsed.wantsHelp = true
            return parsed
        }
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
            let (name, attached) = split(arg, among: specs)
            guard let spec = specs.first(where: { $0.names.contains(name) }) else {
                // cli.md's --config is global; the commands that refuse it
                // say why, rather than leave it to look like a typo.
                let hint = name == Options.config.spec.primary
                    ? ": \(configRefusal) (tiers, report, meetings, compare and tune take it)"
                    : Suggestion.closest(to: name, among: specs.flatMap(\.names)).map { "; did you mean '\($0)'?" } ?? ""
                throw UsageError("unknown option '\(name)'\(hint)", usage: usage)
            }
            var text = attached
            if spec.isFlag {
                if attached != nil { throw UsageError("'\(spec.primary)' takes no value", usage: usage) }
            } else if text == nil {
                // The next word is another of the command's options: this
                // one's value was left out (`--db -f json` made a store
                // named `-f`). A value of that spelling can be attached
                // (`--db=-f`).
                guard i < args.count, !isOptionWord(args[i], among: specs) else { throw UsageError("missing value for '\(name) <\(spec.valueName!.lowercased())>'", usage: usage) }
                text = args[i]
                i += 1
            }
            if parsed.given[spec.primary] != nil && !spec.isRepeatable {
                throw UsageError("'\(spec.primary)' given more than once", usage: usage)
            }
            let value: Any
            do {
                value = try spec.convert(text ?? "")
            } catch let invalid as InvalidValue {
                throw UsageError("'\(spec.primary)' \(invalid.reason), got '\(text ?? "")'", usage: usage)
            }
            parsed.given[spec.primary, default: []].append(value)
        }
        if parsed.positionals.count < minPositionals {
            let missing = arguments[min(parsed.positionals.count, arguments.count)..<min(minPositionals, arguments.count)]
                .map { "<\($0.0.lowercased())>" }.joined(separator: " ")
            throw UsageError("missing expected argument '\(missing)'", usage: usage)
        }
        if let maxPositionals, parsed.positionals.count > maxPositionals {
            let extra = parsed.positionals[maxPositionals]
            // `mqa tiers m-7476`: report meeting takes the id bare, tiers
            // and report track by option; say which option it belongs to.
            let hint = specs.first { $0.primary == "--meeting" && $0.isRequired && parsed.given["--meeting"] == nil }
                .map { _ in " (give the meeting with --meeting \(extra))" } ?? ""
            throw UsageError("unexpected argument '\(extra)'\(hint)", usage: usage)
        }
        for spec in specs where spec.isRequired && parsed.given[spec.primary] == nil {
            throw UsageError("missing '\(spec.synopsis)'", usage: usage)
        }
        for spec in specs where spec.followsOutExtension && parsed.given[spec.primary] == nil {
            guard let out = parsed.given["--out"]?.last as? String else { continue }
            if let word = Self.format(ofFile: out, among: spec.choices) {
                parsed.inferred[spec.primary] = try spec.convert(word)
            } else if Self.format(ofFile: out, among: Self.formatWords) == nil, let ext = Self.fileExtension(out), !ext.isEmpty,
                      ext.lowercased() != "txt", !FilePaths.isDirectory(out), let format = spec.defaultText {
                parsed.outFormatFallback = (String(ext), format)
            } else if let word = Self.format(ofFile: out, among: Self.formatWords), !FilePaths.isDirectory(out) {
                // `-o t.html` from a command that writes no HTML: writing
                // its default format under that name would be a silent lie.
                throw UsageError(
                    "'--out' \(out) names the format \(word), which \(name) does not write (\(spec.choices.joined(separator: ", "))); give '\(spec.names.joined(separator: "/")) FORMAT' to write one of them under that name",
                    usage: usage)
            }
        }
        return parsed
    }

    /// Whether `--version` stands among `args` as a flag: before any `--`,
    /// and not as the value of an option that takes one (`--meeting
    /// --version` names a meeting, as the parser reads it).
    func asksVersion(_ args: [String]) -> Bool {
        let specs = allOptions
        var i = 0
        while i < args.count, args[i] != "--" {
            let arg = args[i]
            i += 1
            if arg == "--version" { return true }
            guard arg.hasPrefix("-"), arg != "-" else { continue }
            let (name, attached) = split(arg, among: specs)
            if attached == nil, let spec = specs.first(where: { $0.names.contains(name) }), !spec.isFlag,
               i < args.count, !isOptionWord(args[i], among: specs) {
                i += 1  // its value
            }
        }
        return false
    }

    /// `--db` or `--db=x` for one of `specs`: a word that is an option,
    /// not a value (`-nightly.db` is a value, though `-n` is an option).
    private func isOptionWord(_ word: String, among specs: [OptionSpec]) -> Bool {
        // `--` ends the options: never a value (`--meeting -- --help FILE`
        // ingested FILE under the meeting `--`, where help looked no further).
        if word == "--" { return true }
        let name = word.hasPrefix("--") ? String(word.prefix { $0 != "=" }) : word
        return specs.contains { $0.names.contains(name) }
    }

    /// The option name and the value written into the same word: `--out=FILE`,
    /// or a short option's attached value (`-n2`, `-fjson`).
    private func split(_ arg: String, among specs: [OptionSpec]) -> (String, String?) {
        if arg.hasPrefix("--") {
            guard let eq = arg.firstIndex(of: "=") else { return (arg, nil) }
            return (String(arg[..<eq]), String(arg[arg.index(after: eq)...]))
        }
        let short = String(arg.prefix(2))
        // Only a short option that takes a value can have one attached;
        // anything else is reported whole (`-xyz` is unknown, not `-x`).
        if arg.count > 2, let spec = specs.first(where: { $0.names.contains(short) }), !spec.isFlag {
            return (short, String(arg.dropFirst(2)))
        }
        return (arg, nil)
    }

    /// What follows the last `.` of a file name (not of a folder on its
    /// path); nil when there is none.
    static func fileExtension(_ path: String) -> Substring? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        return path[path.index(after: dot)...]
    }

    /// Every output format of any command: an `--out` extension among
    /// them names a format.
    static let formatWords = ["md", "json", "csv", "html", "ndjson"]

    /// The format a file name's extension names, among `choices`:
    /// `report.html` → html, `a.HTM` → html, `log.jsonl` → ndjson.
    static func format(ofFile path: String, among choices: [String]) -> String? {
        guard var ext = fileExtension(path)?.lowercased() else { return nil }
        if ext == "htm" { ext = "html" }
        if ext == "markdown" { ext = "md" }
        if ext == "txt" && choices.contains("text") { ext = "text" }
        if ext == "jsonl" && choices.contains("ndjson") { ext = "ndjson" }
        return choices.contains(ext) ? ext : nil
    }
}

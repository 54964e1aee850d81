/// What a command accepts, from which parsing (`parse`, ParsedArguments.swift),
/// `--help` and usage errors (Help.swift) all come, so the help can never
/// drift from the parser.
struct CommandSpec: Sendable {
    var name: String
    var abstract: String
    var discussion: String? = nil
    /// Positional arguments: (placeholder, help).
    var arguments: [(String, String)] = []
    var minPositionals = 0
    var maxPositionals: Int? = 0
    var options: [any OptionDeclaration] = []
    /// `--help`'s EXAMPLES: (what it does, the command line). Each one is
    /// parsed by this spec in a test, so none can name an option that is
    /// not there.
    var examples: [(String, String)] = []

    static let help = Option<Bool>.flag("-h", "--help", help: "Show help information.")

    /// The command's options and `--help`.
    var allOptions: [OptionSpec] { options.map(\.spec) + [CommandSpec.help.spec] }
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

import Foundation
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// A subcommand: its spec (options, help) and what it does. `run` returns
/// the exit code.
struct Subcommand: Sendable {
    var spec: CommandSpec
    var run: @Sendable (ParsedArguments, CommandContext) throws -> Int32
}

/// Exit codes of the spec.
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let rejectedLines: Int32 = 3
    public static let usage: Int32 = 64
}

/// The `mqa` command line.
public enum CLI {
    public static let version = "0.1.0"

    static var subcommands: [Subcommand] {
        [
            IngestCommand.command, ExportCommand.command, TiersCommand.command, TuneCommand.command,
            ReportMeetingCommand.command, ReportTrackCommand.command, ReportFleetCommand.command,
            MeetingsCommand.command, SimulateCommand.command, DemoCommand.command, QueryCommand.command,
            CheckCommand.command, ReportCohortsCommand.command, CompareCommand.command,
            ReportTrendsCommand.command,
        ]
    }

    static var overview: String {
        var text = """
            OVERVIEW: mqa — media quality analytics for video-meeting event logs.

            Ingests the quality events a meeting SDK logs, stores them as compressed
            time series in SQLite, recomputes quality tiers offline, reports per
            meeting, track and fleet, and tunes tier thresholds against real stalls.

            USAGE: mqa <subcommand> [options]

            OPTIONS:
              --version               Show the version.
              -h, --help              Show help information.

            SUBCOMMANDS:

            """
        for s in subcommands { text += CommandSpec.row(s.spec.name, s.spec.abstract) }
        text += "\n  See 'mqa help <subcommand>' for detailed help.\n"
        return text
    }

    static var reportGroupHelp: String {
        var text = "OVERVIEW: Reports on the stored meetings.\n\nUSAGE: mqa report <subcommand> [options]\n\nSUBCOMMANDS:\n"
        for s in subcommands where s.spec.name.hasPrefix("report ") { text += CommandSpec.row(String(s.spec.name.dropFirst(7)), s.spec.abstract) }
        text += "\n  See 'mqa help report <subcommand>' for detailed help.\n"
        return text
    }

    /// Runs `mqa` with `arguments` (without the program name); returns the
    /// exit code.
    public static func main(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        let context = CommandContext(environment: environment, stdout: .standardOutput, stderr: .standardError)
        defer {
            context.stdout.flush()
            context.stderr.flush()
        }
        let code = dispatch(arguments, context)
        // Help and --version too: what was asked for must have reached
        // stdout (`mqa --help > /dev/full` is no success).
        if code == ExitCode.success {
            do {
                try context.stdout.check()
            } catch {
                context.stderr.write("Error: \(error)\n")
                return ExitCode.failure
            }
        }
        return code
    }

    /// Runs the subcommand `arguments` name, or help; returns its exit code.
    static func dispatch(_ arguments: [String], _ context: CommandContext) -> Int32 {
        // Bare `mqa` is not a request for help: a script that lost its
        // subcommand must fail, and the overview shows what it could be.
        guard let first = arguments.first else {
            context.stderr.write("Error: missing subcommand\n\n" + overview)
            return ExitCode.usage
        }
        if first == "-h" || first == "--help" {
            context.stdout.write(overview)
            return ExitCode.success
        }
        if first == "--version" { return versionFlag(arguments, context) }
        if first == "help" { return helpCommand(arguments, context) }
        if first == "report" && (arguments.count == 1 || arguments[1].hasPrefix("-")) { return reportGroup(arguments, context) }
        guard let command = subcommand(arguments) else {
            return usageError(unknownSubcommand(arguments, usage: "mqa <subcommand> [options]"), context)
        }
        return run(command, arguments, context)
    }

    /// `mqa --version [...]`.
    static func versionFlag(_ arguments: [String], _ context: CommandContext) -> Int32 {
        // Help wins in either order, as `--help --version` shows help.
        if arguments.dropFirst().contains(where: { $0 == "-h" || $0 == "--help" }) {
            context.stdout.write(overview)
            return ExitCode.success
        }
        if arguments.count > 1 {
            context.stderr.write("Error: unexpected argument '\(arguments[1])' after --version\n\n" + overview)
            return ExitCode.usage
        }
        context.stdout.write("mqa \(version)\n")
        return ExitCode.success
    }

    /// `mqa help [<subcommand>]`.
    static func helpCommand(_ arguments: [String], _ context: CommandContext) -> Int32 {
        // `mqa help --help` asks for this command's own help, and
        // `mqa help ingest -h` for ingest's: the flag adds nothing.
        // Help wins over `--version`, as it does after `mqa`.
        let flags: Set<String> = ["-h", "--help", "--version"]
        let asked = arguments.dropFirst().contains(where: flags.contains)
        var rest = arguments.dropFirst().filter { !flags.contains($0) }
        if let option = rest.first(where: { $0.hasPrefix("-") }) {
            return usageError(UsageError("unknown option '\(option)' for 'mqa help' (it takes a subcommand's name)",
                                         usage: "mqa help [<subcommand>]"), context)
        }
        if rest.isEmpty && asked { rest = ["help"] }
        guard !rest.isEmpty else {
            context.stdout.write(overview)
            return ExitCode.success
        }
        if rest == ["report"] {
            context.stdout.write(reportGroupHelp)
            return ExitCode.success
        }
        if rest == ["help"] {
            context.stdout.write("""
                OVERVIEW: Show a subcommand's help: what it does, its options, examples.

                USAGE: mqa help [<subcommand>]

                ARGUMENTS:
                  <subcommand>            A subcommand, e.g. ingest, or report meeting. Without one:
                                          the list of subcommands.

                """)
            return ExitCode.success
        }
        guard let command = subcommand(rest) else {
            return usageError(unknownSubcommand(rest, usage: "mqa help <subcommand>"), context)
        }
        // `mqa help ingest meeting`: a word no help is about is a typo.
        let named = rest.first == "ls" ? 1 : command.spec.name.split(separator: " ").count
        if rest.count > named {
            return usageError(UsageError("unexpected argument '\(rest[named])' after '\(rest.prefix(named).joined(separator: " "))'",
                                         usage: "mqa help [<subcommand>]"), context)
        }
        context.stdout.write(command.spec.helpText)
        return ExitCode.success
    }

    /// `mqa report` without a kind, or with an option first.
    static func reportGroup(_ arguments: [String], _ context: CommandContext) -> Int32 {
        let rest = arguments.dropFirst()
        if rest.contains("-h") || rest.contains("--help") {
            context.stdout.write(reportGroupHelp)
            return ExitCode.success
        }
        // Like bare `mqa`: a missing kind is an error, shown with the kinds.
        if rest.isEmpty {
            context.stderr.write("Error: missing subcommand: 'report' needs a kind: meeting, track, fleet, cohorts or trends\n\n" + reportGroupHelp)
            return ExitCode.usage
        }
        return usageError(UsageError("'report' needs a kind: meeting, track, fleet, cohorts or trends", usage: "mqa report <meeting|track|fleet|cohorts|trends> [options]"), context)
    }

    /// Parses `arguments` for `command` and runs it; every output checked
    /// before the exit code is returned.
    static func run(_ command: Subcommand, _ arguments: [String], _ context: CommandContext) -> Int32 {
        let consumed = command.spec.name.split(separator: " ").count
        // `mqa CMD --version` is the tool's version, as after `mqa` (help
        // still wins).
        let words = arguments.dropFirst(consumed).prefix { $0 != "--" }
        if command.spec.asksVersion(Array(arguments.dropFirst(consumed))) && !words.contains(where: { $0 == "-h" || $0 == "--help" }) {
            context.stdout.write("mqa \(version)\n")
            return ExitCode.success
        }
        do {
            let parsed = try command.spec.parse(Array(arguments.dropFirst(consumed)))
            if parsed.wantsHelp {
                context.stdout.write(command.spec.helpText)
                return ExitCode.success
            }
            // A command that reads times only when given some still refuses
            // an unknown `$MQA_TZ`, as every other one does, before any work.
            if command.spec.options.contains(where: { $0.spec.primary == Options.tz.spec.primary }) {
                _ = try context.zone(parsed)
            }
            // `--out` naming the store is refused before any work too: a
            // sweep of minutes that then fails on its output is no help.
            let db = Options.db.spec.primary, out = Options.out.spec.primary
            if parsed.declared[out] != nil, let path = parsed.value(Options.out), path != "-" {
                if parsed.declared[db] != nil { try context.refuseStore(asOutput: path, parsed) }
                try context.refuseInput(asOutput: path, parsed, spec: command.spec)
            }
            let code = try command.run(parsed, context)
            // Every result file is renamed into place and stdout checked:
            // a full disk or a closed device is a failure, never exit 0.
            for sink in context.outputs.sinks { try sink.close() }
            try context.stdout.check()
            return code
        } catch let error as UsageError {
            var e = error
            if e.usage == nil { e.usage = command.spec.usage }
            return usageError(e, context)
        } catch let error as TierConfigError {
            return usageError(UsageError("\(error)", usage: command.spec.usage), context)
        } catch {
            context.stderr.write("Error: \(error)\n")
            return ExitCode.failure
        }
    }

    /// The subcommand named by the first word(s): `report meeting` is two words.
    static func subcommand(_ words: [String]) -> Subcommand? {
        let all = subcommands
        if words.first == "ls" { return all.first { $0.spec.name == "meetings" } }
        if words.count >= 2, let two = all.first(where: { $0.spec.name == words[0] + " " + words[1] }) { return two }
        return all.first(where: { $0.spec.name == words[0] })
    }

    /// The error for words that name no subcommand, with the closest one:
    /// `reprot` → 'report'; within a group, `report fleat` → 'report fleet'.
    static func unknownSubcommand(_ words: [String], usage: String) -> UsageError {
        let first = words[0]
        let members = subcommands.map(\.spec.name).filter { $0.hasPrefix(first + " ") }
        if !members.isEmpty, words.count >= 2 {
            let name = first + " " + words[1]
            let kinds = members.map { String($0.dropFirst(first.count + 1)) }
            let hint = Suggestion.closest(to: name, among: members).map { "; did you mean '\($0)'?" }
                ?? "; '\(first)' takes \(kinds.joined(separator: ", "))"
            return UsageError("unknown subcommand '\(name)'\(hint)", usage: "mqa \(first) <\(kinds.joined(separator: "|"))> [options]")
        }
        let names = Set(subcommands.map { String($0.spec.name.split(separator: " ")[0]) })
        let hint = Suggestion.closest(to: first, among: Array(names)).map { "; did you mean '\($0)'?" } ?? ""
        return UsageError("unknown subcommand '\(first)'\(hint)", usage: usage)
    }

    static func usageError(_ error: UsageError, _ context: CommandContext) -> Int32 {
        context.stderr.write("Error: \(error.message)\n")
        if let usage = error.usage { context.stderr.write("Usage: \(usage)\n") }
        context.stderr.write("  See 'mqa --help' or 'mqa help <subcommand>'.\n")
        return ExitCode.usage
    }
}

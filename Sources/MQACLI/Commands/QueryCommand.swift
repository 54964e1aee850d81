import Foundation
import MQADomain
import MQAQueries
import MQAReports
import MQAStore

/// `mqa query NAME` / `mqa query --list`
enum QueryCommand {
    static let spec = CommandSpec(
        name: "query",
        abstract: "Run a named SQL query from Queries/ on the store.",
        discussion: """
            The queries are the .sql files of the project's Queries/ folder, compiled
            into mqa; each also runs as it is in the sqlite3 shell. Parameters are
            bound, never spliced into the SQL. Queries over meetings (meetings,
            worst-meetings) take --since/--until. JSON keys are camelCase
            (duration_ms is durationMs); times and durations are in ms.
            """,
        arguments: [("NAME", "The query (see --list).")],
        maxPositionals: 1,
        options: [
            CommandContext.dbOption,
            .flag("--list", help: "List the named queries and what they return."),
            .option("--param", value: "K=V", help: "Bind :K to V (repeatable).", repeatable: true),
            CommandContext.sinceOption, CommandContext.untilOption,
            .option("--format", value: "FORMAT", help: "md (default), json or csv."),
            CommandContext.outOption,
        ])

    static let command = Subcommand(spec: spec, run: run)

    /// Parameters bound from `--since`/`--until` (ms), NULL when not given.
    static let windowParameters = ["since", "until"]

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let out = try context.output(args)
        if args.has("--list") {
            out.write(QueryReport.list(Queries.named))
            out.flush()
            return ExitCode.success
        }
        guard let name = args.positionals.first else {
            throw UsageError("missing expected argument '<name>' (or --list)")
        }
        guard Queries.named.contains(where: { $0.name == name }) else {
            throw UsageError("no query named '\(name)'; known: \(Queries.named.map(\.name).joined(separator: ", "))")
        }
        let format = try args.choice("--format", ["md", "json", "csv"], default: "md", usage: spec.usage)
        let window = try context.timeWindow(args)
        // Summaries left stale by a killed ingest are redone first, when the
        // store may be written; a read-only store is queried as it is.
        let path = try context.databasePath(args)
        try EventStore.refreshStaleSummaries(path: path)
        let store = try context.openStore(args)
        let takes = try store.parameters(ofQuery: name)
        var bound: [String: SQLValue] = [:]
        for pair in args.values["--param"] ?? [] {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                throw UsageError("'--param' takes K=V, got '\(pair)'")
            }
            let key = String(pair[..<eq])
            let value = String(pair[pair.index(after: eq)...])
            guard takes.contains(key) else {
                throw UsageError("query '\(name)' has no parameter '\(key)' (it takes: \(takes.isEmpty ? "none" : takes.joined(separator: ", ")))")
            }
            if windowParameters.contains(key) { throw UsageError("give '\(key)' as --\(key) TIME, not --param") }
            bound[key] = Int64(value).map { .int($0) } ?? .text(value)
        }
        for (key, ms) in [("since", window.since), ("until", window.until)] {
            guard let ms else { continue }
            guard takes.contains(key) else {
                let windowed = try Queries.named.map(\.name).filter { try store.parameters(ofQuery: $0).contains(key) }
                throw UsageError("query '\(name)' takes no --\(key) (those that do: \(windowed.joined(separator: ", ")))")
            }
            bound[key] = .int(ms)
        }
        for key in takes where bound[key] == nil && !windowParameters.contains(key) {
            throw UsageError("query '\(name)' needs --param \(key)=VALUE")
        }
        let result = try store.runQuery(name, parameters: bound)
        out.write(QueryReport(result).render(ReportFormat(rawValue: format) ?? .md))
        out.flush()
        return ExitCode.success
    }
}

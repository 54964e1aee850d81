import Foundation
import MQAQueries
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa query NAME` / `mqa query --list`
enum QueryCommand {
    static let spec = CommandSpec(
        name: "query",
        abstract: "Run a named SQL query from Queries/ on the store.",
        discussion: """
            The queries are the .sql files of the project's Queries/ folder, compiled
            into mqa; each also runs as it is in the sqlite3 shell. Parameters are
            bound, never spliced into the SQL: as text (007 stays 007) unless the
            query declares one integer; a meeting or uid takes a unique prefix of
            an id. Queries over meetings (meetings,
            worst-meetings) take --since/--until. JSON keys are camelCase
            (duration_ms is durationMs); times and durations are in ms.
            """,
        arguments: [("NAME", "The query (see --list).")],
        maxPositionals: 1,
        options: [Options.db, list, param, Options.since, Options.until, Options.tz, format, Options.out],
        examples: [
            ("List the named queries", "mqa query --list"),
            ("Rejected lines with their file, line and reason", "mqa query rejects -f csv"),
            ("The 10 worst meetings since a date", "mqa query worst-meetings --param limit=10 --since 2026-11-01"),
        ])

    static let list = Option<Bool>.flag("--list", help: "List the named queries and what they return.")
    static let param = Option<[String]>.repeatable(
        "--param", value: "K=V", help: "Bind :K to V.",
        validate: { ($0.firstIndex(of: "=") ?? $0.startIndex) == $0.startIndex ? "takes K=V" : nil })
    static let format = Options.format(["md", "json", "csv"])

    static let command = Subcommand(spec: spec, run: run)

    /// Parameters bound from `--since`/`--until` (ms), NULL when not given.
    static let windowParameters = ["since", "until"]

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let out = try context.output(args)
        if try args.get(Self.list) {
            // What a query would take has no meaning for the list: said, not dropped.
            if let stray = args.positionals.first { throw UsageError("--list takes no query name, got '\(stray)'") }
            let forRunning: [any OptionDeclaration] = [Self.param, Options.since, Options.until, Options.tz]
            for option in forRunning where args.isGiven(option) {
                throw UsageError("--list takes no \(option.spec.primary); it is for running a query")
            }
            let format: String = try args.get(Self.format)
            out.write(QueryReport.list(Queries.named, format: ReportFormat(rawValue: format) ?? .md))
            out.flush()
            return ExitCode.success
        }
        guard let name = args.positionals.first else {
            throw UsageError("missing expected argument '<name>' (or --list)")
        }
        guard Queries.named.contains(where: { $0.name == name }) else {
            throw UsageError("no query named '\(name)'; known: \(Queries.named.map(\.name).joined(separator: ", "))")
        }
        let format: String = try args.get(Self.format)
        let window = try context.timeWindow(args)
        // Summaries left stale by a killed ingest are redone first, when the
        // store may be written; a read-only store is queried as it is.
        let path = try context.databasePath(args)
        do {
            try EventStore.refreshStaleSummaries(path: path)
        } catch StoreError.staleSummaries(_, _) where !(Queries.named.first { $0.name == name }?.sql.contains("_summary") ?? true) {
            // A query of no summary table (rejects, storage) is whole anyway.
        }
        let store = try context.openStore(args)
        let takes = try store.declaredParameters(ofQuery: name)
        let names = takes.map(\.name)
        var given: [String: String] = [:]
        for pair in try args.get(Self.param) {
            // `param` checked the shape: a key, then `=`.
            let eq = pair.firstIndex(of: "=")!
            let key = String(pair[..<eq])
            guard names.contains(key) else {
                throw UsageError("query '\(name)' has no parameter '\(key)' (it takes: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
            }
            if windowParameters.contains(key) { throw UsageError("give '\(key)' as --\(key) TIME, not --param") }
            // Options given twice are refused everywhere; so is a parameter.
            if given[key] != nil { throw UsageError("--param \(key) is given more than once") }
            given[key] = String(pair[pair.index(after: eq)...])
        }
        var bound: [String: SQLValue] = [:]
        // The meeting first: a uid prefix is completed among its clients.
        var meeting: String?
        for parameter in takes.filter({ $0.name == "meeting" }) + takes.filter({ $0.name != "meeting" }) {
            guard let text = given[parameter.name] else { continue }
            let v = try value(text, for: parameter, meeting: meeting, store: store)
            if parameter.name == "meeting", case .text(let id) = v { meeting = id }
            bound[parameter.name] = v
        }
        for (key, ms) in [("since", window.since), ("until", window.until)] {
            guard let ms else { continue }
            guard names.contains(key) else {
                let windowed = try Queries.named.map(\.name).filter { try store.parameters(ofQuery: $0).contains(key) }
                throw UsageError("query '\(name)' takes no --\(key) (those that do: \(windowed.joined(separator: ", ")))")
            }
            bound[key] = .int(ms)
        }
        for parameter in takes where bound[parameter.name] == nil && !parameter.optional
            && !windowParameters.contains(parameter.name) {
            throw UsageError("query '\(name)' needs --param \(parameter.name)=VALUE")
        }
        let result = try store.runQuery(name, parameters: bound)
        var report = QueryReport(result)
        report.name = name
        report.display = TimeDisplay(zone: try context.zone(args))
        out.write(report.render(ReportFormat(rawValue: format) ?? .md))
        out.flush()
        return ExitCode.success
    }

    /// What `--param` binds for `parameter`: an integer parameter's number
    /// (any other value is a usage error naming the parameter), else the
    /// text as given, so that `007` stays `007`. A `meeting` or `uid` is
    /// completed from a unique prefix as everywhere in the CLI (an exact id
    /// wins; a uid among `meeting`'s clients when the query takes one).
    static func value(_ text: String, for parameter: QueryParameter, meeting: String?, store: EventStore) throws -> SQLValue {
        switch parameter.kind {
        case .integer:
            guard let number = Int64(text) else {
                throw UsageError("--param \(parameter.name) takes an integer, got '\(text)'")
            }
            return .int(number)
        case .text:
            switch parameter.name {
            case "meeting", "uid":
                // As `--meeting ''`: `meeting=` matched nothing, exit 0.
                if let problem = Options.nonEmptyId(text) { throw UsageError("--param \(parameter.name)= \(problem)") }
                return .text(parameter.name == "meeting" ? try store.resolveMeeting(text) : try store.resolveUid(text, meeting: meeting))
            default: return .text(text)
            }
        }
    }
}

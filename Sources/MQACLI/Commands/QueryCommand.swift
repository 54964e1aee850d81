import Foundation
import MQADomain
import MQAQueries
import MQAStore

/// `mqa query NAME` / `mqa query --list`
enum QueryCommand {
    static let spec = CommandSpec(
        name: "query",
        abstract: "Run a named SQL query from Queries/ on the store.",
        discussion: """
            The queries are the .sql files of the project's Queries/ folder, compiled
            into mqa; each also runs as it is in the sqlite3 shell. Parameters are
            bound, never spliced into the SQL.
            """,
        arguments: [("NAME", "The query (see --list).")],
        maxPositionals: 1,
        options: [
            CommandContext.dbOption,
            .flag("--list", help: "List the named queries and what they return."),
            .option("--param", value: "K=V", help: "Bind :K to V (repeatable).", repeatable: true),
            .option("--format", value: "FORMAT", help: "md (default), json or csv."),
            CommandContext.outOption,
        ])

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let out = try context.output(args)
        if args.has("--list") {
            var table = MarkdownTable(headers: ["query", "what it returns"])
            for (name, sql) in Queries.named { table.add([name, summary(of: sql)]) }
            out.write(table.rendered)
            out.flush()
            return ExitCode.success
        }
        guard let name = args.positionals.first else {
            throw UsageError("missing expected argument '<name>' (or --list)")
        }
        guard let sql = Queries.named.first(where: { $0.name == name })?.sql else {
            throw UsageError("no query named '\(name)'; known: \(Queries.named.map(\.name).joined(separator: ", "))")
        }
        let format = try args.choice("--format", ["md", "json", "csv"], default: "md", usage: spec.usage)
        // Summaries left stale by a killed ingest are redone first, when the
        // store may be written; a read-only store is queried as it is.
        let path = try context.databasePath(args)
        try EventStore.refreshStaleSummaries(path: path)
        let store = try context.openStore(args)
        let statement = try store.db.prepare(sql)
        var given: [String: String] = [:]
        for pair in args.values["--param"] ?? [] {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                throw UsageError("'--param' takes K=V, got '\(pair)'")
            }
            given[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        for key in given.keys where !statement.parameterNames.contains(key) {
            throw UsageError("query '\(name)' has no parameter '\(key)' (it takes: \(statement.parameterNames.joined(separator: ", ")))")
        }
        for key in statement.parameterNames {
            guard let value = given[key] else { throw UsageError("query '\(name)' needs --param \(key)=VALUE") }
            statement.bind(name: key, Int64(value).map { .int($0) } ?? .text(value))
        }
        let columns = (0..<statement.columnCount).map { statement.columnName($0) }
        var rows: [[SQLValue]] = []
        while try statement.step() { rows.append((0..<statement.columnCount).map { statement.value($0) }) }
        switch format {
        case "json":
            let items = rows.map { row in JSON.object(zip(columns, row).map { ($0, json($1)) }) }
            out.write(JSON.array(items).rendered(pretty: true) + "\n")
        case "csv":
            out.write(columns.map(CSV.cell).joined(separator: ",") + "\n")
            for row in rows { out.write(row.map(csv).joined(separator: ",") + "\n") }
        default:
            var table = MarkdownTable(headers: columns)
            for (i, v) in (rows.first ?? []).enumerated() {
                if case .int = v { table.rightAligned.insert(i) }
                if case .double = v { table.rightAligned.insert(i) }
            }
            for row in rows { table.add(row.map(text)) }
            out.write(table.rendered)
        }
        out.flush()
        return ExitCode.success
    }

    /// The first comment line of a query file: what it returns.
    static func summary(of sql: String) -> String {
        let first = sql.split(separator: "\n").first { $0.hasPrefix("--") } ?? ""
        return first.dropFirst(2).trimmingCharacters(in: .whitespaces)
    }

    static func json(_ v: SQLValue) -> JSON {
        switch v {
        case .null: .null
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        case .text(let s): .string(s)
        case .blob(let b): .string(TerminalText.escaped(bytes: b))
        }
    }

    static func text(_ v: SQLValue) -> String {
        switch v {
        case .null: ""
        case .int(let i): String(i)
        case .double(let d): JSON.number((d * 1000).rounded() / 1000)
        case .text(let s): short(TerminalText.escaped(s))
        case .blob(let b): short(TerminalText.escaped(bytes: b))
        }
    }

    static func short(_ s: String) -> String { s.count > 120 ? String(s.prefix(119)) + "…" : s }

    static func csv(_ v: SQLValue) -> String {
        switch v {
        case .int, .double: text(v)
        case .text(let s): CSV.cell(TerminalText.escaped(s))
        case .blob(let b): CSV.cell(TerminalText.escaped(bytes: b))
        default: CSV.cell(text(v))
        }
    }
}

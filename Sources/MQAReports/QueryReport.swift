import Foundation
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// `mqa query NAME`: the rows a named query returned.
public struct QueryReport: Sendable {
    public var table: ReportTable
    /// The query's name, for the JSON.
    public var name = ""

    /// The JSON's `schema`.
    public static let schema = "mqa.query/1"

    /// Text longer than this is cut in md, where a row must stay readable.
    public static let shownCharacters = 120

    /// JSON keys follow the reports' conventions: camelCase (`duration_ms`
    /// is `durationMs`); times and durations stay in ms.
    public init(_ result: QueryResult) {
        // A column is numeric when its first value is: SQLite types values,
        // not columns.
        let first = result.rows.first ?? []
        table = ReportTable(columns: result.columns.enumerated().map { i, name in
            var numeric = false
            if i < first.count {
                switch first[i] {
                case .int, .double: numeric = true
                default: break
                }
            }
            return ReportTable.Column(name, key: QueryReport.camelCase(name), numeric: numeric,
                                      maxCharacters: QueryReport.shownCharacters)
        })
        for row in result.rows { table.add(row.map(QueryReport.cell)) }
    }

    /// How md writes the instants (`--tz`): JSON and CSV keep ms.
    public var display = TimeDisplay()

    /// The columns that hold an instant in epoch ms.
    static let instantColumns: Set<String> = ["start", "end", "ts"]

    /// The report in `format`: md, json or csv.
    public func render(_ format: ReportFormat) -> String {
        switch format {
        case .json: JSON.object([("schema", .string(QueryReport.schema)), ("query", .string(name)), ("rows", table.json)]).rendered(pretty: true) + "\n"
        case .csv: csvTable.csv
        case .md, .html: timedTable.markdown
        }
    }

    /// With a zone, each instant column is followed by its UTC and local
    /// time, as every text format shows them; without one the table as
    /// the query returned it, byte for byte.
    var timedTable: ReportTable {
        guard let zone = display.zone else { return table }
        let instants = Set(table.columns.indices.filter { QueryReport.instantColumns.contains(table.columns[$0].header) })
        guard !instants.isEmpty else { return table }
        var t = ReportTable(columns: table.columns.indices.flatMap { i in
            let c = table.columns[i]
            return instants.contains(i) ? [c, ReportTable.Column("\(c.header) (UTC, \(zone.identifier))", key: c.key + "Local")] : [c]
        })
        for row in table.rows {
            t.add(row.cells.indices.flatMap { i -> [ReportCell] in
                guard instants.contains(i) else { return [row.cells[i]] }
                guard case .number(.int(let ms), _) = row.cells[i] else { return [row.cells[i], .empty(shown: "")] }
                return [row.cells[i], .text(display.dateTime(ms))]
            }, htmlClass: row.htmlClass, id: row.id)
        }
        return t
    }

    /// The table headed by the camelCase keys, as JSON names them: CSV
    /// and JSON headers are spelled one way (md keeps the file's names).
    var csvTable: ReportTable {
        var t = table
        for i in t.columns.indices { t.columns[i].header = t.columns[i].key }
        return t
    }

    /// `mqa query --list`: each query with the first comment line of its file.
    public static func list(_ queries: [(name: String, sql: String)], format: ReportFormat = .md) -> String {
        switch format {
        case .json:
            let rows = queries.map { JSON.object([("name", .string($0.name)), ("returns", .string(summary(of: $0.sql)))]) }
            return JSON.object([("schema", .string(listSchema)), ("queries", .array(rows))]).rendered(pretty: true) + "\n"
        case .csv:
            var table = ReportTable(headers: ["name", "returns"])
            for (name, sql) in queries { table.add(text: [name, summary(of: sql)]) }
            return table.csv
        case .md, .html:
            var table = ReportTable(headers: ["query", "what it returns"])
            for (name, sql) in queries { table.add(text: [name, summary(of: sql)]) }
            return table.markdown
        }
    }

    /// The JSON's `schema` of `--list`.
    public static let listSchema = "mqa.query-list/1"

    /// `low_tier_ms` → `lowTierMs`: a column name as the reports' JSON
    /// spells its keys.
    static func camelCase(_ column: String) -> String {
        let words = column.split(separator: "_")
        guard let first = words.first else { return column }
        return String(first) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// The first comment line of a query file: what it returns.
    static func summary(of sql: String) -> String {
        let first = sql.split(separator: "\n").first { $0.hasPrefix("--") } ?? ""
        return first.dropFirst(2).trimmingCharacters(in: .whitespaces)
    }

    /// Doubles shown to 3 decimals (exact in JSON); blobs as text with
    /// their invalid UTF-8 bytes as `\xFF`.
    static func cell(_ v: SQLValue) -> ReportCell {
        switch v {
        case .null: .empty(shown: "")
        case .int(let i): .int(i)
        case .double(let d): .number(.double(d), shown: JSON.number((d * 1000).rounded() / 1000))
        case .text(let s): .text(s)
        case .blob(let b): .text(TerminalText.escaped(bytes: b))
        }
    }
}

import MQAQueries
import MQABase
import MQAModel

/// What a named query returned: its column names and its rows, as SQLite
/// typed the values.
public struct QueryResult: Sendable, Equatable {
    public var columns: [String]
    public var rows: [[SQLValue]]
}

extension EventStore {
    /// The parameters of the named query `name` (`:since` gives `since`),
    /// in the order they appear.
    public func parameters(ofQuery name: String) throws -> [String] {
        try db.prepare(try EventStore.namedQuery(name)).parameterNames
    }

    /// The parameters of the named query `name`, in the order they appear,
    /// each as its file declares it (`-- param:` lines, see
    /// `QueryParameter`); one with no declaration is required text. A
    /// declaration of a parameter the SQL does not use is an error, so a
    /// misspelt one cannot leave the real one text.
    public func declaredParameters(ofQuery name: String) throws -> [QueryParameter] {
        let sql = try EventStore.namedQuery(name)
        let declared = try Queries.declaredParameters(in: sql)
        let used = try db.prepare(sql).parameterNames
        if let stray = declared.first(where: { !used.contains($0.name) }) {
            throw QueryDeclarationError("query '\(name)' declares :\(stray.name), which its SQL does not use")
        }
        return used.map { used in declared.first { $0.name == used } ?? QueryParameter(name: used) }
    }

    /// Runs the named query `name` (a file of `Queries/`) with `parameters`
    /// bound by name. A parameter the query takes but `parameters` lacks is
    /// NULL, as in the `sqlite3` shell; one it does not take is an error.
    public func runQuery(_ name: String, parameters: [String: SQLValue] = [:]) throws -> QueryResult {
        let statement = try db.prepare(try EventStore.namedQuery(name))
        let known = statement.parameterNames
        if let stray = parameters.keys.sorted().first(where: { !known.contains($0) }) {
            throw StoreError.noSuchParameter(query: name, parameter: stray, known: known)
        }
        for (key, value) in parameters { statement.bind(name: key, value) }
        let columns = (0..<statement.columnCount).map { statement.columnName($0) }
        var rows: [[SQLValue]] = []
        while try statement.step() { rows.append((0..<statement.columnCount).map { statement.value($0) }) }
        return QueryResult(columns: columns, rows: rows)
    }

    private static func namedQuery(_ name: String) throws -> String {
        guard let sql = Queries.named.first(where: { $0.name == name })?.sql else {
            throw StoreError.noSuchQuery(name, known: Queries.named.map(\.name))
        }
        return sql
    }
}

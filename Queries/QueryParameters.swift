/// A parameter of a named query as its file declares it, in a comment line
/// (so that the file still runs as it is in the `sqlite3` shell):
///
///     -- param: :limit integer optional  at most this many rows (default 100)
///
/// The words after `-- param:` are the parameter (`:limit`), its type
/// (`text` or `integer`), then `optional` when the query gives NULL a
/// meaning; anything after that is prose for the reader. A parameter with
/// no declaration is required text: a value such as `007` must reach the
/// query as the text it is, never as the number 7.
public struct QueryParameter: Sendable, Equatable {
    /// How `mqa query --param` binds a value.
    public enum Kind: String, Sendable, CaseIterable {
        /// Bound as the text given, whatever it looks like.
        case text
        /// A 64-bit integer in decimal; any other value is refused.
        case integer
    }

    public var name: String
    public var kind: Kind
    /// Whether the query may run with the parameter unset (NULL).
    public var optional: Bool

    public init(name: String, kind: Kind = .text, optional: Bool = false) {
        self.name = name
        self.kind = kind
        self.optional = optional
    }
}

/// A `-- param:` line that does not say what it should; the message names
/// the line.
public struct QueryDeclarationError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension Queries {
    /// The marker of a declaration line.
    static let declarationMarker = "-- param:"

    /// The parameters declared by the `-- param:` lines of `sql`, in the
    /// order of those lines. A line that names no parameter or an unknown
    /// type, or a parameter declared twice, is an error: a typo must not
    /// quietly turn a number into text.
    public static func declaredParameters(in sql: String) throws -> [QueryParameter] {
        var declared: [QueryParameter] = []
        for line in sql.split(separator: "\n", omittingEmptySubsequences: true) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix(declarationMarker) else { continue }
            let words = trimmed.dropFirst(declarationMarker.count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0].hasPrefix(":"), words[0].count > 1 else {
                throw QueryDeclarationError("'\(trimmed)': expected '-- param: :NAME TYPE [optional]'")
            }
            let name = String(words[0].dropFirst())
            guard let kind = QueryParameter.Kind(rawValue: String(words[1])) else {
                let known = QueryParameter.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw QueryDeclarationError("'\(trimmed)': unknown type '\(words[1])' (known: \(known))")
            }
            guard !declared.contains(where: { $0.name == name }) else {
                throw QueryDeclarationError("'\(trimmed)': :\(name) is declared twice")
            }
            declared.append(QueryParameter(name: name, kind: kind, optional: words.count > 2 && words[2] == "optional"))
        }
        return declared
    }
}

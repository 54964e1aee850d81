import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// A table of a report, before it has a format: columns with headers, and
/// rows of typed cells. Every command and report builds its tables as this
/// one type, and `markdown`, `html`, `csv` and `json` render them, so that
/// escaping happens in one place: a report never escapes a cell itself.
public struct ReportTable: Sendable {
    public var columns: [Column]
    public var rows: [Row] = []

    /// One column.
    public struct Column: Sendable {
        /// Words mqa chose: shown as they are in Markdown and CSV (where
        /// `#` or `|` in them is meant), escaped in HTML.
        public var header: String
        /// The key of this column in `json`.
        public var key: String
        /// Numbers: aligned right in Markdown and HTML.
        public var numeric: Bool
        /// Markdown only: longer text is cut to this many characters (after
        /// control characters became visible escapes), so that a terminal
        /// row stays readable; the other formats keep it whole.
        public var maxCharacters: Int?

        public init(_ header: String, key: String? = nil, numeric: Bool = false, maxCharacters: Int? = nil) {
            self.header = header
            self.key = key ?? header
            self.numeric = numeric
            self.maxCharacters = maxCharacters
        }
    }

    /// One row; `htmlClass` and `id` (an anchor mqa made safe) are for
    /// HTML only.
    public struct Row: Sendable {
        public var cells: [ReportCell]
        public var htmlClass: String?
        public var id: String?
    }

    public init(columns: [Column]) { self.columns = columns }

    /// Columns named by their headers; those at `numeric` align right.
    public init(headers: [String], numeric: Set<Int> = []) {
        columns = headers.enumerated().map { Column($0.element, numeric: numeric.contains($0.offset)) }
    }

    /// Adds a row of typed cells.
    public mutating func add(_ cells: [ReportCell], htmlClass: String? = nil, id: String? = nil) {
        rows.append(Row(cells: cells, htmlClass: htmlClass, id: id))
    }

    /// Adds a row of text cells.
    public mutating func add(text cells: [String], htmlClass: String? = nil, id: String? = nil) {
        add(cells.map(ReportCell.text), htmlClass: htmlClass, id: id)
    }
}

/// One cell of a `ReportTable`: what it holds decides how each format
/// shows it.
public enum ReportCell: Sendable, Equatable {
    /// Text, from a log or not: escaped for every format.
    case text(String)
    /// Text mqa wrote whose punctuation is not Markdown (a JSON value, a
    /// mark like `*`): shown as it is in Markdown, escaped as text elsewhere.
    case literal(String)
    /// A number: `value` in JSON, `shown` in the other formats (never
    /// quoted or made inert in CSV).
    case number(JSON, shown: String)
    /// No value: `shown` (`—`) in Markdown and HTML, an empty CSV cell,
    /// `null` in JSON.
    case empty(shown: String)
    /// Text that links to `href`, a file name or fragment mqa made safe.
    case link(String, href: String)
    /// HTML that mqa built (log text in it escaped already), and the plain
    /// `text` the other formats show instead.
    case markup(html: String, text: String)

    /// An integer, shown in decimal.
    public static func int<I: BinaryInteger>(_ v: I) -> ReportCell { .number(.int(Int64(v)), shown: String(v)) }

    /// An optional integer; `shown` when there is none.
    public static func int(_ v: Int64?, none: String) -> ReportCell { v.map { .int($0) } ?? .empty(shown: none) }

    /// The text of the cell before any escaping.
    var plain: String {
        switch self {
        case .text(let s), .literal(let s), .link(let s, _), .markup(_, let s): s
        case .number(_, let shown), .empty(let shown): shown
        }
    }
}

import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

extension ReportTable {
    /// The rows as a JSON array of objects keyed by the columns' keys:
    /// numbers as numbers, missing values as `null`, the rest as strings.
    public var json: JSON {
        .array(rows.map { row in
            .object(zip(columns, row.cells).map { column, cell in
                switch cell {
                case .number(let value, _): (column.key, value)
                case .empty: (column.key, .null)
                case .text, .literal, .link, .markup: (column.key, .string(cell.plain))
                }
            })
        })
    }
}

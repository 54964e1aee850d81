import MQABase

/// A `ReportTable` whose rows are made as it is written, one at a time:
/// a long one (a 20,000-viewer meeting has 20,000 participants, 20,000
/// subscriptions, 60,000 stalls) is never held whole, as cells or as text.
/// `head` gives the columns (its own rows are not read).
struct LazyReportTable {
    var head: ReportTable
    var count: Int
    var row: (Int) -> ReportTable.Row

    init(_ head: ReportTable, count: Int, row: @escaping (Int) -> ReportTable.Row) {
        self.head = head
        self.count = count
        self.row = row
    }

    /// The same with rows of cells only (no HTML class or id).
    init(_ head: ReportTable, count: Int, cells: @escaping (Int) -> [ReportCell]) {
        self.init(head, count: count) { ReportTable.Row(cells: cells($0)) }
    }

    func writeMarkdown(_ emit: (String) -> Void) { head.writeMarkdown(rows: count, { row($0).cells }, emit) }
    func writeHTML(_ emit: (String) -> Void) { head.writeHTML(rows: count, row, emit) }
}

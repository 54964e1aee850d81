import MQAModel

/// A participant's warm reports (the statistics' rule: inside a
/// connection, past the cold start, `rtt != 0`) as `(ts, loss, rtt)`, in
/// time order: what a publisher's figures and the late-loss rule read.
///
/// A view over the client's own columns (shared, not copied) and the
/// positions of its warm reports: 4 bytes a report where a copy of the
/// three values took 24, which on a 500-viewer hour was 22 MB.
struct WarmFigures: RandomAccessCollection, Sendable {
    private let columns: ReportColumns
    private let positions: [Int32]

    init(_ columns: ReportColumns, positions: [Int32]) {
        self.columns = columns
        self.positions = positions
    }

    /// Reports given as they are (tests).
    init(_ reports: [(ts: Int64, loss: Double, rtt: Double)]) {
        var c = ReportColumns()
        c.ts = reports.map(\.ts)
        c.loss = reports.map(\.loss)
        c.rtt = reports.map(\.rtt)
        self.init(c, positions: reports.indices.map { Int32($0) })
    }

    var startIndex: Int { 0 }
    var endIndex: Int { positions.count }

    subscript(i: Int) -> (ts: Int64, loss: Double, rtt: Double) {
        let p = Int(positions[i])
        return (columns.ts[p], columns.loss[p], columns.rtt[p])
    }
}

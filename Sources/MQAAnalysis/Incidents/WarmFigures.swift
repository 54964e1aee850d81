import MQAModel

/// A participant's warm reports (the statistics' rule: inside a
/// connection, past the cold start, `rtt != 0`) as `(ts, loss, rtt)`, in
/// time order: what a publisher's figures and the late-loss rule read.
///
/// Only those reports the rules can read are kept (`IncidentFinder.Collector`
/// says which: a sender's all, a viewer's near its stalls), copied out of
/// the client's columns, so that the columns themselves can go once the
/// client is read. A view of every client's columns kept them all alive:
/// 48 bytes a report, 173 MB on a 2,000-viewer hour.
struct WarmFigures: RandomAccessCollection, Sendable {
    private var ts: [Int64] = []
    private var loss: [Double] = []
    private var rtt: [Double] = []

    /// The reports of `columns` at `positions` (in time order) whose time
    /// `keeps`.
    init(_ columns: ReportColumns, positions: [Int32], keeping keeps: (Int64) -> Bool) {
        for p in positions.lazy.map(Int.init) where keeps(columns.ts[p]) {
            ts.append(columns.ts[p])
            loss.append(columns.loss[p])
            rtt.append(columns.rtt[p])
        }
    }

    /// Reports given as they are (tests).
    init(_ reports: [(ts: Int64, loss: Double, rtt: Double)]) {
        ts = reports.map(\.ts)
        loss = reports.map(\.loss)
        rtt = reports.map(\.rtt)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { ts.count }

    subscript(i: Int) -> (ts: Int64, loss: Double, rtt: Double) { (ts[i], loss[i], rtt[i]) }
}

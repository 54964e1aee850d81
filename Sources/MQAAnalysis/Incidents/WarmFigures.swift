import MQAModel

/// A participant's warm reports (the statistics' rule: inside a
/// connection, past the cold start, `rtt != 0`) as `(ts, loss, rtt)`, in
/// time order: what a publisher's figures and the late-loss rule read.
///
/// Only those reports the rules can read are kept (`IncidentFinder.Collector`
/// says which: a sender's all, a viewer's near its stalls), copied out of
/// the client's reports as `IncidentSignal.spikes` walks them, so that the
/// reports themselves can go once the client is read. A view of every
/// client's columns kept them all alive: 48 bytes a report, 173 MB on a
/// 2,000-viewer hour.
struct WarmFigures: RandomAccessCollection, Sendable, Equatable {
    private var ts: [Int64] = []
    private var loss: [Double] = []
    private var rtt: [Double] = []

    /// None yet: `spikes` appends them as it walks the client's reports.
    init() {}

    mutating func append(ts: Int64, loss: Double, rtt: Double) {
        self.ts.append(ts)
        self.loss.append(loss)
        self.rtt.append(rtt)
    }

    /// The figures in columns of their own size (held to the meeting's end).
    func fitted() -> WarmFigures {
        var f = self
        f.ts = ts.fitted
        f.loss = loss.fitted
        f.rtt = rtt.fitted
        return f
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

import MQABase
import MQAModel

extension EventSeries {
    /// Appends an event that `reportsLogged` of the client's reports of
    /// the same input came before: `placedAmongReports` later turns that
    /// count into the event's place among its millisecond's reports.
    package mutating func append(ts: Int64, kind: EventKind, payload: ArraySlice<UInt8>, reportsLogged: UInt32) {
        block.append(ts: ts, kind: kind.rawValue, payload: payload, reportsBefore: reportsLogged)
    }

    /// The events, sorted by time, with each one's `reportsBefore` turned
    /// from the count of `logged` (the client's reports in input order)
    /// written before it into the count of those of its own millisecond,
    /// the order tiers.md keeps at equal `ts`. An event whose place is the
    /// one its kind gives (`TimedEvent.byKind`: a join or reconnect before
    /// its millisecond's reports, any other event after them) gets
    /// `byKind`, so that the store writes a place only where the input
    /// order says something else.
    ///
    /// `sortedReports` is `logged` sorted by time (sorted here when nil). Walking both sorted
    /// series finds the events that share a millisecond with a report;
    /// only for those (rare in real logs) is `logged` read again.
    package func placedAmongReports(logged: ReportSeries, sortedReports: ReportSeries? = nil) -> EventSeries {
        let sortedReports = sortedReports ?? logged.sortedByTime()
        var out = sortedByTime()
        let n = out.count
        guard n > 0 else { return out }
        var shared: [Int] = []
        var r = 0
        for i in 0..<n {
            let t = out.ts(i)
            while r < sortedReports.count && sortedReports.ts(r) < t { r += 1 }
            if r < sortedReports.count && sortedReports.ts(r) == t {
                shared.append(i)
            } else {
                out.block.setReportsBefore(i, TimedEvent.byKind)
            }
        }
        guard !shared.isEmpty else { return out }
        // The input positions of the reports at each shared millisecond,
        // in input order.
        var positions: [Int64: [UInt32]] = [:]
        for i in shared { positions[out.ts(i)] = [] }
        for j in 0..<logged.count where positions[logged.ts(j)] != nil {
            positions[logged.ts(j)]!.append(UInt32(j))
        }
        for i in shared {
            let logged = out.block.reportsBefore[i]
            let atTime = positions[out.ts(i)]!
            var before = 0
            while before < atTime.count && atTime[before] < logged { before += 1 }
            let kind = EventKind(rawValue: out.block.kinds[i])
            let byKind = kind?.opensConnection == true ? 0 : atTime.count
            out.block.setReportsBefore(i, before == byKind ? TimedEvent.byKind : UInt32(before))
        }
        return out
    }
}

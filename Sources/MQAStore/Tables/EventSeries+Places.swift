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
    /// written before it into the count of those of its own millisecond
    /// that are kept (a repeat of an earlier one is dropped, so it does not
    /// count): the order tiers.md keeps at equal `ts`. The place is always
    /// a count, 0 for an event alone in its millisecond, never
    /// `TimedEvent.byKind`: a count stays right when a later input adds
    /// reports to the millisecond (they come after it), where the kind's
    /// rule would put them before any event but a join.
    ///
    /// `sortedReports` is `logged` sorted by time (sorted here when nil).
    /// Walking both sorted series finds the events that share a
    /// millisecond with a report; only for those (rare in real logs) is
    /// `logged` read again.
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
                out.block.setReportsBefore(i, 0)
            }
        }
        guard !shared.isEmpty else { return out }
        // The input positions of the kept reports of each shared
        // millisecond, in input order. Repeats are found by hash: a log
        // whose clock is stuck puts every line in one millisecond.
        var positions: [Int64: [Int]] = [:]
        var seen: [Int64: [Int: [Int]]] = [:]
        for i in shared { positions[out.ts(i)] = [] }
        for j in 0..<logged.count where positions[logged.ts(j)] != nil {
            let t = logged.ts(j), h = placeHash(logged, j)
            if seen[t]?[h]?.contains(where: { logged.same($0, logged, j) }) == true { continue }
            seen[t, default: [:]][h, default: []].append(j)
            positions[t]!.append(j)
        }
        for i in shared {
            let written = Int(out.block.reportsBefore[i])
            let kept = positions[out.ts(i)]!
            var before = 0
            while before < kept.count && kept[before] < written { before += 1 }
            out.block.setReportsBefore(i, UInt32(before))
        }
        return out
    }

    /// These events (sorted, placed among `own`, their input's reports,
    /// sorted and free of repeats) as they stand after `earlier` reports
    /// (sorted), which were logged before all of them: an event comes
    /// after the reports `earlier` has in its millisecond, and of its own
    /// input's reports before it, those that repeat one of them are
    /// dropped and no longer count. A log cut between two inputs inside
    /// such a millisecond, or a log read again after it grew, needs it;
    /// nil when no place changes.
    package func placed(after earlier: ReportSeries, own: ReportSeries) -> EventSeries? {
        guard count > 0, earlier.count > 0, ts(0) <= earlier.ts(earlier.count - 1) else { return nil }
        var out: EventSeries?
        var r = 0, o = 0
        // Per millisecond, once: `kept[p]` = how many of the first p of the
        // input's reports there repeat none of `earlier`'s.
        var keptAt: Int64?
        var kept: [Int] = []
        for i in 0..<count {
            let t = ts(i)
            while r < earlier.count && earlier.ts(r) < t { r += 1 }
            guard r < earlier.count else { break }
            var stored = 0
            while r + stored < earlier.count && earlier.ts(r + stored) == t { stored += 1 }
            guard stored > 0 else { continue }
            let place = block.reportsBefore[i]
            // An event of unknown place (an old chunk's) keeps its kind's rule.
            guard place != TimedEvent.byKind else { continue }
            if keptAt != t {
                while o < own.count && own.ts(o) < t { o += 1 }
                var buckets: [Int: [Int]] = [:]
                for k in r..<r + stored { buckets[placeHash(earlier, k), default: []].append(k) }
                kept = [0]
                var k = o
                while k < own.count && own.ts(k) == t {
                    let repeats = buckets[placeHash(own, k)]?.contains { earlier.same($0, own, k) } ?? false
                    kept.append(kept[kept.count - 1] + (repeats ? 0 : 1))
                    k += 1
                }
                keptAt = t
            }
            let moved = UInt32(stored + kept[min(Int(place), kept.count - 1)])
            guard moved != place else { continue }
            if out == nil { out = self }
            out!.block.setReportsBefore(i, moved)
        }
        return out
    }
}

/// An item's hash by `MergeableSeries.hashItem`, which `same` agrees with.
private func placeHash<S: MergeableSeries>(_ series: S, _ i: Int) -> Int {
    var hasher = Hasher()
    series.hashItem(i, into: &hasher)
    return hasher.finalize()
}

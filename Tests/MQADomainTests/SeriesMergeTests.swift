import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Merging new items into a client's series, and sorting one: runs of
/// items are copied whole, and that must keep exactly the items, in the
/// order, that the item-by-item rule keeps.
@Suite struct SeriesMergeTests {
    /// The rule, item by item: an item is dropped when an item kept before
    /// it at the same time is the same.
    static func reference<S: MergeableSeries>(_ new: S) -> (kept: [Int], duplicates: Int) {
        var kept: [Int] = []
        var duplicates = 0
        for j in 0..<new.count {
            if kept.contains(where: { new.ts($0) == new.ts(j) && new.same($0, new, j) }) {
                duplicates += 1
            } else {
                kept.append(j)
            }
        }
        return (kept, duplicates)
    }

    @Test func eventsWithRepeatsKeepWhatTheRuleKeeps() {
        var r = SplitMix64(seed: 31)
        let payloads = [#"{}"#, #"{"tier":"good"}"#, #"{"tier":"bad"}"#].map { Array($0.utf8) }
        for _ in 0..<300 {
            var new = EventSeries()
            var t: Int64 = 0
            for _ in 0..<Int(r.next() % 40) {
                t += Int64(r.next() % 3)  // equal times are common
                new.append(ts: t, kind: EventKind(rawValue: UInt8(6 + r.next() % 2))!, payload: payloads[Int(r.next() % 3)][...])
            }
            let (merged, duplicates) = EventSeries.merge(stored: EventSeries(), new: new)
            let expected = Self.reference(new)
            #expect(duplicates == expected.duplicates)
            #expect(merged.block.ts == expected.kept.map { new.block.ts[$0] })
            #expect(merged.block.kinds == expected.kept.map { new.block.kinds[$0] })
            #expect(merged.block.payloads == expected.kept.map { new.block.payloads[$0] })
        }
    }

    @Test func reportsWithRepeatsKeepWhatTheRuleKeeps() {
        var r = SplitMix64(seed: 32)
        let values: [DecimalNumber] = [.null, DecimalNumber(mantissa: 0, exponent: 0), DecimalNumber(mantissa: 42, exponent: -1)]
        for _ in 0..<300 {
            let n = Int(r.next() % 40)
            var ts: [Int64] = []
            var t: Int64 = 0
            for _ in 0..<n { t += Int64(r.next() % 3); ts.append(t) }
            let columns = (0..<ReportColumn.allCases.count).map { _ in (0..<n).map { _ in values[Int(r.next() % 3)] } }
            let new = ReportSeries(ts: ts, columns: columns)
            let (merged, duplicates) = ReportSeries.merge(stored: ReportSeries(), new: new)
            let expected = Self.reference(new)
            #expect(duplicates == expected.duplicates)
            #expect(merged.ts == expected.kept.map { ts[$0] })
            #expect(merged.columns == columns.map { c in expected.kept.map { c[$0] } })
        }
    }

    /// The merge rule, item by item: stored items first at equal times; a
    /// new item is dropped when an item taken before it at its time (stored
    /// or new) is the same. `(true, j)` is new item j, `(false, i)` stored i.
    static func referenceMerge<S: MergeableSeries>(stored: S, new: S) -> (kept: [(ofNew: Bool, index: Int)], duplicates: Int) {
        var kept: [(ofNew: Bool, index: Int)] = []
        var duplicates = 0
        var (i, j) = (0, 0)
        while i < stored.count || j < new.count {
            if j >= new.count || (i < stored.count && stored.ts(i) <= new.ts(j)) {
                kept.append((false, i))
                i += 1
                continue
            }
            let repeated = kept.contains { k in
                k.ofNew ? new.ts(k.index) == new.ts(j) && new.same(k.index, new, j)
                    : stored.ts(k.index) == new.ts(j) && stored.same(k.index, new, j)
            }
            if repeated { duplicates += 1 } else { kept.append((true, j)) }
            j += 1
        }
        return (kept, duplicates)
    }

    /// Sorted times from `start`, equal times common.
    static func times(_ r: inout SplitMix64, count: Int, from start: Int64) -> [Int64] {
        var t = start
        return (0..<count).map { _ in t += Int64(r.next() % 3); return t }
    }

    static func events(_ r: inout SplitMix64, ts: [Int64]) -> EventSeries {
        let payloads = [#"{}"#, #"{"tier":"good"}"#, #"{"tier":"bad"}"#].map { Array($0.utf8) }
        var s = EventSeries()
        for t in ts { s.append(ts: t, kind: EventKind(rawValue: UInt8(6 + r.next() % 2))!, payload: payloads[Int(r.next() % 3)][...]) }
        return s
    }

    static func reports(_ r: inout SplitMix64, ts: [Int64]) -> ReportSeries {
        let values: [DecimalNumber] = [.null, DecimalNumber(mantissa: 0, exponent: 0), DecimalNumber(mantissa: 42, exponent: -1)]
        let columns = (0..<ReportColumn.allCases.count).map { _ in ts.map { _ in values[Int(r.next() % 3)] } }
        return ReportSeries(ts: ts, columns: columns)
    }

    /// Stored items (sorted, free of repeats) and new ones that start
    /// before, inside, at the end of or after them.
    static func pair<S: MergeableSeries>(_ r: inout SplitMix64, make: (inout SplitMix64, [Int64]) -> S) -> (stored: S, new: S) {
        let stored = S.dropRepeats(make(&r, times(&r, count: Int(r.next() % 30), from: 0))).merged
        let end = stored.count > 0 ? stored.ts(stored.count - 1) : 0
        let starts: [Int64] = [0, end / 2, end, end + 1, end + 5]
        let new = make(&r, times(&r, count: Int(r.next() % 30), from: starts[Int(r.next() % 5)]))
        return (stored, new)
    }

    @Test func eventMergesKeepWhatTheRuleKeeps() {
        var r = SplitMix64(seed: 33)
        var sideBySide = 0
        for _ in 0..<600 {
            let (stored, new) = Self.pair(&r, make: Self.events)
            if stored.count > 0 && new.count > 0 && stored.ts(stored.count - 1) < new.ts(0) { sideBySide += 1 }
            let (merged, duplicates) = EventSeries.merge(stored: stored, new: new)
            let expected = Self.referenceMerge(stored: stored, new: new)
            let pick = { (k: (ofNew: Bool, index: Int)) in k.ofNew ? new.block : stored.block }
            #expect(duplicates == expected.duplicates)
            #expect(merged.block.ts == expected.kept.map { pick($0).ts[$0.index] })
            #expect(merged.block.kinds == expected.kept.map { pick($0).kinds[$0.index] })
            #expect(merged.block.payloads == expected.kept.map { Array(pick($0).payload($0.index)) })
        }
        #expect(sideBySide > 100)  // the fast path was taken, and not only it
    }

    @Test func reportMergesKeepWhatTheRuleKeeps() {
        var r = SplitMix64(seed: 34)
        for _ in 0..<600 {
            let (stored, new) = Self.pair(&r, make: Self.reports)
            let (merged, duplicates) = ReportSeries.merge(stored: stored, new: new)
            let expected = Self.referenceMerge(stored: stored, new: new)
            let pick = { (k: (ofNew: Bool, index: Int)) in k.ofNew ? new : stored }
            #expect(duplicates == expected.duplicates)
            #expect(merged.ts == expected.kept.map { pick($0).ts[$0.index] })
            #expect(merged.columns == ReportColumn.allCases.map { c in expected.kept.map { pick($0)[c][$0.index] } })
        }
    }

    /// A stuck clock: hundreds of items at one time, past the count that is
    /// compared one by one (`RepeatIndex`), many distinct and some repeated,
    /// mos 0 against null among them. Looked up by hash, the kept items are
    /// still the rule's, within one piece and against stored items.
    @Test func manyItemsAtOneTimeKeepWhatTheRuleKeeps() {
        var r = SplitMix64(seed: 36)
        let values: [DecimalNumber] = [
            .null, DecimalNumber(mantissa: 0, exponent: 0), DecimalNumber(mantissa: 0, exponent: 3),
            DecimalNumber(mantissa: 42, exponent: -1), DecimalNumber(mantissa: 420, exponent: -2),
        ]
        let payloads = (0..<40).map { Array(#"{"tier":"t\#($0 % 20)"}"#.utf8) }
        for round in 0..<40 {
            let n = [40, 200, 700][round % 3]
            let at: Int64 = 1_795_946_400_000
            func times(_ count: Int) -> [Int64] {
                // A few items, then two long runs at one time each (a
                // stuck clock that moved once).
                (0..<count).map { k in k < 3 ? at - 1 : (k < count / 2 ? at : at + 1) }
            }
            func reports(_ count: Int) -> ReportSeries {
                let ts = times(count)
                let columns = ReportColumn.allCases.map { _ in ts.map { _ in values[Int(r.next() % (round % 2 == 0 ? 2 : 5))] } }
                return ReportSeries(ts: ts, columns: columns)
            }
            func events(_ count: Int) -> EventSeries {
                var e = EventSeries()
                for t in times(count) {
                    e.append(ts: t, kind: EventKind(rawValue: UInt8(6 + r.next() % 2))!, payload: payloads[Int(r.next() % 40)][...])
                }
                return e
            }
            let newReports = reports(n)
            let (kept, duplicates) = ReportSeries.merge(stored: ReportSeries(), new: newReports)
            let expected = Self.reference(newReports)
            #expect(duplicates == expected.duplicates, "round \(round)")
            #expect(kept.ts == expected.kept.map { newReports.ts[$0] })
            #expect(kept.columns == newReports.columns.map { c in expected.kept.map { c[$0] } })
            let stored = ReportSeries.dropRepeats(reports(n / 2)).merged
            let (merged, mergedDuplicates) = ReportSeries.merge(stored: stored, new: newReports)
            let expectedMerge = Self.referenceMerge(stored: stored, new: newReports)
            let pick = { (k: (ofNew: Bool, index: Int)) in k.ofNew ? newReports : stored }
            #expect(mergedDuplicates == expectedMerge.duplicates, "round \(round)")
            #expect(merged.columns == ReportColumn.allCases.map { c in expectedMerge.kept.map { pick($0)[c][$0.index] } })

            let newEvents = events(n)
            let (keptEvents, eventDuplicates) = EventSeries.merge(stored: EventSeries(), new: newEvents)
            let expectedEvents = Self.reference(newEvents)
            #expect(eventDuplicates == expectedEvents.duplicates, "round \(round)")
            #expect(keptEvents.block.payloads == expectedEvents.kept.map { newEvents.block.payloads[$0] })
            let storedEvents = EventSeries.dropRepeats(events(n / 2)).merged
            let (mergedEvents, mergedEventDuplicates) = EventSeries.merge(stored: storedEvents, new: newEvents)
            let expectedEventMerge = Self.referenceMerge(stored: storedEvents, new: newEvents)
            let pickEvents = { (k: (ofNew: Bool, index: Int)) in k.ofNew ? newEvents.block : storedEvents.block }
            #expect(mergedEventDuplicates == expectedEventMerge.duplicates, "round \(round)")
            #expect(mergedEvents.block.kinds == expectedEventMerge.kept.map { pickEvents($0).kinds[$0.index] })
            #expect(mergedEvents.block.payloads == expectedEventMerge.kept.map { Array(pickEvents($0).payload($0.index)) })
        }
    }

    @Test func sortingKeepsEqualTimesInOrder() {
        var r = SplitMix64(seed: 35)
        for _ in 0..<300 {
            // Sorted, then some neighbours swapped and some items moved far.
            var ts = Self.times(&r, count: Int(r.next() % 50), from: 0)
            for k in ts.indices.dropFirst() where r.next() % 5 == 0 { ts.swapAt(k, k - 1) }
            if ts.count > 2 && r.next() % 2 == 0 { ts.swapAt(0, ts.count - 1) }
            // Far from sorted: past the insertion sort's budget of moves.
            if r.next() % 6 == 0 { ts.reverse() }
            if r.next() % 6 == 0 { ts.shuffle(using: &r) }
            let events = Self.events(&r, ts: ts)
            let order = ts.indices.sorted { (ts[$0], $0) < (ts[$1], $1) }
            let sorted = events.sortedByTime()
            #expect(sorted.block.ts == order.map { ts[$0] })
            #expect(sorted.block.kinds == order.map { events.block.kinds[$0] })
            #expect(sorted.block.payloads == order.map { Array(events.block.payload($0)) })
            let reports = Self.reports(&r, ts: ts)
            let sortedReports = reports.sortedByTime()
            #expect(sortedReports.ts == order.map { ts[$0] })
            #expect(sortedReports.columns == reports.columns.map { c in order.map { c[$0] } })
        }
    }
}

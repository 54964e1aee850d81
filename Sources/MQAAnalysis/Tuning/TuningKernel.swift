import MQABase
import MQAModel

/// The tuning sweep's view of the tier machine: counters and two small
/// per-client buffers (alarm times, holds at or below the target) in
/// preallocated memory, so the hot loop never allocates. The buffers carry
/// their capacity: a write past it traps in a debug build (the buffer
/// subscript's check), and costs nothing in a release one.
struct TuningSink<Where: TuningWindows>: TierSink {
    let target: Int8
    let alarmTs: UnsafeMutableBufferPointer<Int64>
    let lowFrom: UnsafeMutableBufferPointer<Int64>
    let lowTo: UnsafeMutableBufferPointer<Int64>
    /// Where the client counts: changes and tier time elsewhere are not
    /// counted; low holds are kept whole, since a tier before a window
    /// still warned of a stall inside it. A type parameter, so that the
    /// usual client (`Everywhere`) runs the loop it ran before windows.
    let windows: Where
    var alarmCount = 0
    var lowCount = 0
    var flaps = 0
    var warmMs: Int64 = 0

    init(target: Int8, alarmTs: UnsafeMutableBufferPointer<Int64>, lowFrom: UnsafeMutableBufferPointer<Int64>,
         lowTo: UnsafeMutableBufferPointer<Int64>, windows: Where) {
        self.target = target
        self.alarmTs = alarmTs
        self.lowFrom = lowFrom
        self.lowTo = lowTo
        self.windows = windows
    }

    @inline(__always) mutating func cold(report index: Int) {}
    @inline(__always) mutating func warm(report index: Int, mos: Double) {}

    @inline(__always)
    mutating func change(ts: Int64, from: Tier, to: Tier) {
        // Known tiers have raw values ≥ 0, unknown is -1.
        guard from.rawValue >= 0, to.rawValue >= 0 else { return }
        guard windows.contains(ts) else { return }
        flaps += 1
        if from.rawValue > target, to.rawValue <= target {  // an alarm
            alarmTs[alarmCount] = ts
            alarmCount += 1
        }
    }

    @inline(__always)
    mutating func hold(_ tier: Tier, from: Int64, to: Int64) {
        warmMs += windows.overlap(from, to)
        if tier.rawValue <= target, to > from {
            // A hold that goes on from the last is one with it: the union
            // is what coverage reads, and a long low stretch takes one
            // entry, not one a report (9 MB a worker on a client of 4M).
            if lowCount > 0, lowTo[lowCount - 1] == from {
                lowTo[lowCount - 1] = to
                return
            }
            lowFrom[lowCount] = from
            lowTo[lowCount] = to
            lowCount += 1
        }
    }
}

/// Where a client's alarms, flaps and tier time count (`TuningCorpus.clientWindow`).
protocol TuningWindows {
    func contains(_ t: Int64) -> Bool
    /// The time of `[from, to)` inside.
    func overlap(_ from: Int64, _ to: Int64) -> Int64
}

/// A client that counts everywhere: the usual case.
struct Everywhere: TuningWindows {
    @inline(__always) func contains(_ t: Int64) -> Bool { true }
    @inline(__always) func overlap(_ from: Int64, _ to: Int64) -> Int64 { to - from }
}

/// A client's part of a cohort by network: its windows, ascending.
struct Windows: TuningWindows {
    let from: UnsafeBufferPointer<Int64>
    let to: UnsafeBufferPointer<Int64>

    func contains(_ t: Int64) -> Bool {
        for w in 0..<from.count where from[w] <= t && t < to[w] { return true }
        return false
    }

    func overlap(_ a: Int64, _ b: Int64) -> Int64 {
        var ms: Int64 = 0
        for w in 0..<from.count { ms += max(0, min(b, to[w]) - max(a, from[w])) }
        return ms
    }
}

/// Scores one config over a corpus. Reads only flat buffers; all scratch
/// memory is allocated once per call.
struct TuningKernel {
    let corpus: TuningCorpus
    let options: TuningOptions

    func score(_ config: TierConfig, mos: UnsafeBufferPointer<Double>) -> TuningScore {
        TuningScore(counts(config, mos: mos))
    }

    /// The additive counts behind `score`. With `perClient`, also each
    /// client's share of them, at `4 * c`: alarms, useful, stalls, covered.
    func counts(_ config: TierConfig, mos: UnsafeBufferPointer<Double>,
                perClient: UnsafeMutableBufferPointer<Int>? = nil) -> TuningCounts {
        let p = TierParams(config)
        let lead = options.leadMs
        // At most two changes per warm report (a gap reset and a change).
        let scratch = max(1, corpus.maxClientReports)
        let alarmTs = UnsafeMutableBufferPointer<Int64>.allocate(capacity: 2 * scratch)
        let lowFrom = UnsafeMutableBufferPointer<Int64>.allocate(capacity: scratch)
        let lowTo = UnsafeMutableBufferPointer<Int64>.allocate(capacity: scratch)
        defer { alarmTs.deallocate(); lowFrom.deallocate(); lowTo.deallocate() }
        var leads: [Int64] = []
        leads.reserveCapacity(corpus.stallCount)
        var alarms = 0, covered = 0, useful = 0, flaps = 0
        var warmMs: Int64 = 0

        corpus.ts.withUnsafeBufferPointer { ts in
        corpus.stallStarts.withUnsafeBufferPointer { stalls in
        corpus.windowFrom.withUnsafeBufferPointer { windowFrom in
        corpus.windowTo.withUnsafeBufferPointer { windowTo in
            for c in 0..<corpus.clientCount {
                // The tier machine over the client's connections; its
                // counts, with its alarm times and low holds left in the
                // shared buffers.
                func machine<W: TuningWindows>(_ windows: W) -> (alarms: Int, lows: Int) {
                    var sink = TuningSink(target: options.target.rawValue, alarmTs: alarmTs, lowFrom: lowFrom, lowTo: lowTo,
                                          windows: windows)
                    for k in corpus.clientConn[c]..<corpus.clientConn[c + 1] {
                        let r = corpus.reportStart[k]..<corpus.reportStart[k + 1]
                        TierMachine.run(
                            measuredTs: UnsafeBufferPointer(rebasing: ts[r]),
                            mos: UnsafeBufferPointer(rebasing: mos[r]),
                            start: corpus.connStart[k], end: corpus.connEnd[k], p, &sink)
                    }
                    flaps += sink.flaps
                    warmMs += sink.warmMs
                    return (sink.alarmCount, sink.lowCount)
                }
                let w0 = corpus.clientWindow[c], w1 = corpus.clientWindow[c + 1]
                let (alarmCount, lowCount) = w1 > w0
                    ? machine(Windows(from: UnsafeBufferPointer(rebasing: windowFrom[w0..<w1]),
                                      to: UnsafeBufferPointer(rebasing: windowTo[w0..<w1])))
                    : machine(Everywhere())
                alarms += alarmCount

                // Stalls and the client's alarms / low holds are all in time
                // order: one merge pass each.
                let s0 = corpus.clientStall[c], s1 = corpus.clientStall[c + 1]
                let (usefulBefore, coveredBefore) = (useful, covered)
                var low = 0, alarm = 0
                for si in s0..<s1 {
                    let t1 = stalls[si]
                    // The last low hold starting at or before t1 ends latest
                    // (holds are disjoint), so it alone decides coverage.
                    while low < lowCount, lowFrom[low] <= t1 { low += 1 }
                    guard low > 0, lowTo[low - 1] > t1 - lead else { continue }
                    covered += 1
                    while alarm < alarmCount, alarmTs[alarm] <= t1 { alarm += 1 }
                    if alarm > 0 { leads.append(t1 - alarmTs[alarm - 1]) }
                }
                var si = s0
                for a in 0..<alarmCount {
                    let ta = alarmTs[a]
                    while si < s1, stalls[si] < ta { si += 1 }
                    if si < s1, stalls[si] <= ta + lead { useful += 1 }
                }
                if let perClient {
                    perClient[4 * c] = alarmCount
                    perClient[4 * c + 1] = useful - usefulBefore
                    perClient[4 * c + 2] = s1 - s0
                    perClient[4 * c + 3] = covered - coveredBefore
                }
            }
        }
        }
        }
        }
        return TuningCounts(alarms: alarms, stalls: corpus.stallCount, covered: covered, useful: useful,
                            flaps: flaps, warmMs: warmMs, leadTimes: leads)
    }
}

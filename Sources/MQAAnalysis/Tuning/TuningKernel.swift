import MQABase
import MQAModel

/// The tuning sweep's view of the tier machine: counters and two small
/// per-client buffers (alarm times, holds at or below the target) in
/// preallocated memory, so the hot loop never allocates. The buffers carry
/// their capacity: a write past it traps in a debug build (the buffer
/// subscript's check), and costs nothing in a release one.
struct TuningSink: TierSink {
    let target: Int8
    let alarmTs: UnsafeMutableBufferPointer<Int64>
    let lowFrom: UnsafeMutableBufferPointer<Int64>
    let lowTo: UnsafeMutableBufferPointer<Int64>
    var alarmCount = 0
    var lowCount = 0
    var flaps = 0
    var warmMs: Int64 = 0

    @inline(__always) mutating func cold(report index: Int) {}
    @inline(__always) mutating func warm(report index: Int, mos: Double) {}

    @inline(__always)
    mutating func change(ts: Int64, from: Tier, to: Tier) {
        // Known tiers have raw values ≥ 0, unknown is -1.
        guard from.rawValue >= 0, to.rawValue >= 0 else { return }
        flaps += 1
        if from.rawValue > target, to.rawValue <= target {  // an alarm
            alarmTs[alarmCount] = ts
            alarmCount += 1
        }
    }

    @inline(__always)
    mutating func hold(_ tier: Tier, from: Int64, to: Int64) {
        warmMs += to - from
        if tier.rawValue <= target, to > from {
            lowFrom[lowCount] = from
            lowTo[lowCount] = to
            lowCount += 1
        }
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

    /// The additive counts behind `score`.
    func counts(_ config: TierConfig, mos: UnsafeBufferPointer<Double>) -> TuningCounts {
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
        corpus.rtt.withUnsafeBufferPointer { rtt in
        corpus.stallStarts.withUnsafeBufferPointer { stalls in
            for c in 0..<corpus.clientCount {
                var sink = TuningSink(target: options.target.rawValue, alarmTs: alarmTs, lowFrom: lowFrom, lowTo: lowTo)
                for k in corpus.clientConn[c]..<corpus.clientConn[c + 1] {
                    let r = corpus.reportStart[k]..<corpus.reportStart[k + 1]
                    TierMachine.run(
                        ts: UnsafeBufferPointer(rebasing: ts[r]),
                        rtt: UnsafeBufferPointer(rebasing: rtt[r]),
                        mos: UnsafeBufferPointer(rebasing: mos[r]),
                        start: corpus.connStart[k], end: corpus.connEnd[k], p, &sink)
                }
                alarms += sink.alarmCount
                flaps += sink.flaps
                warmMs += sink.warmMs

                // Stalls and the client's alarms / low holds are all in time
                // order: one merge pass each.
                let s0 = corpus.clientStall[c], s1 = corpus.clientStall[c + 1]
                var low = 0, alarm = 0
                for si in s0..<s1 {
                    let t1 = stalls[si]
                    // The last low hold starting at or before t1 ends latest
                    // (holds are disjoint), so it alone decides coverage.
                    while low < sink.lowCount, lowFrom[low] <= t1 { low += 1 }
                    guard low > 0, lowTo[low - 1] > t1 - lead else { continue }
                    covered += 1
                    while alarm < sink.alarmCount, alarmTs[alarm] <= t1 { alarm += 1 }
                    if alarm > 0 { leads.append(t1 - alarmTs[alarm - 1]) }
                }
                var si = s0
                for a in 0..<sink.alarmCount {
                    let ta = alarmTs[a]
                    while si < s1, stalls[si] < ta { si += 1 }
                    if si < s1, stalls[si] <= ta + lead { useful += 1 }
                }
            }
        }
        }
        }
        return TuningCounts(alarms: alarms, stalls: corpus.stallCount, covered: covered, useful: useful,
                            flaps: flaps, warmMs: warmMs, leadTimes: leads)
    }
}

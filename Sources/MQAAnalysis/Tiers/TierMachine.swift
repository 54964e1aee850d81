import MQABase
import MQAModel

/// A `TierConfig` flattened into plain fields for the hot loop: no arrays,
/// no enums with payloads, nothing to retain.
public struct TierParams: Sendable {
    /// The thresholds `[t0, t1, t2, t3]`; the other fields mirror `TierConfig`.
    public var t0: Double, t1: Double, t2: Double, t3: Double
    public var hysteresis: Double
    public var alphaDown: Double
    public var alphaUp: Double
    public var downDwell: Int
    public var upDwell: Int
    public var coldStartMs: Int64
    public var gapMs: Int64

    /// `config` must be valid (see `TierConfig.validate()`).
    public init(_ config: TierConfig) {
        t0 = config.thresholds[0]; t1 = config.thresholds[1]
        t2 = config.thresholds[2]; t3 = config.thresholds[3]
        hysteresis = config.hysteresis
        alphaDown = config.alphaDown
        alphaUp = config.alphaUp
        downDwell = config.downDwell
        upDwell = config.upDwell
        coldStartMs = config.coldStartMs
        gapMs = config.gapMs
    }

    /// Spec "Cold start": where a connection opened at `start` stops being
    /// cold. The only place the sum is written: the tier machine, the
    /// incident signals and the report's charts all take it from here.
    @inline(__always)
    public static func warmFrom(connectionStart start: Int64, coldStartMs: Int64) -> Int64 {
        start + coldStartMs
    }

    /// Spec "Cold start": a report is warm when it lies at or after
    /// `warmFrom` (see `warmFrom(connectionStart:coldStartMs:)`) and carries a
    /// measured RTT (SDKs send 0 until the first measurement). The only
    /// definition: the tier machine and the report's charts both ask here.
    /// (`rtt` is read only for a report past the cold start, as the spec's
    /// statement does: reading it first costs the tuning kernel 2.4 %.)
    @inlinable @inline(__always)
    public static func isWarm(ts: Int64, rtt: @autoclosure () -> Double, warmFrom: Int64) -> Bool {
        ts >= warmFrom && rtt() != 0
    }

    /// Spec "Gaps": a silence longer than `gapMs` between two warm reports
    /// resets the tier to unknown (and breaks a chart's line).
    @inline(__always)
    public static func isGap(from previous: Int64, to ts: Int64, gapMs: Int64) -> Bool {
        ts - previous > gapMs
    }

    /// The spec's `tierOf`: the first edge `x` reaches, from the top.
    @inline(__always)
    public func tierOf(_ x: Double) -> Tier {
        x >= t0 ? .excellent : x >= t1 ? .good : x >= t2 ? .fair : x >= t3 ? .poor : .bad
    }
}

/// What the tier machine reports while it runs over one connection. The
/// analysis records everything; the tuning sweep keeps a few counters. Both
/// are driven by the same `TierMachine.run`, so they cannot disagree.
protocol TierSink {
    /// Report `index` (into the buffers given to `run`) is cold.
    mutating func cold(report index: Int)
    /// Report `index` is warm and drives the tier with `mos`.
    mutating func warm(report index: Int, mos: Double)
    /// An emitted tier change.
    mutating func change(ts: Int64, from: Tier, to: Tier)
    /// `tier` (always known) holds over `[from, to)`; the interval may be empty.
    mutating func hold(_ tier: Tier, from: Int64, to: Int64)
}

/// The spec's tier state machine for one connection, statement for statement.
struct TierMachine {
    private(set) var tier: Tier = .unknown
    private var s: Double = 0
    private var hasS = false
    private var up = 0
    private var down = 0
    private var lastTs: Int64 = 0
    private var hasLast = false

    /// Feeds one warm report.
    @inline(__always)
    mutating func step<Sink: TierSink>(ts: Int64, mos m: Double, _ p: TierParams, _ sink: inout Sink) {
        if hasLast, TierParams.isGap(from: lastTs, to: ts, gapMs: p.gapMs) {
            sink.change(ts: lastTs + p.gapMs, from: tier, to: .unknown)
            tier = .unknown; hasS = false; up = 0; down = 0
        }
        lastTs = ts; hasLast = true
        if !hasS {  // first warm report: set directly
            s = m; hasS = true
            let t = p.tierOf(s)
            sink.change(ts: ts, from: .unknown, to: t)
            tier = t
            return
        }
        let a = m < s ? p.alphaDown : p.alphaUp
        s = a * m + (1 - a) * s
        let c = p.tierOf(s)
        if c.rawValue < tier.rawValue {  // worse
            down += 1; up = 0
            if down >= p.downDwell {
                sink.change(ts: ts, from: tier, to: c)
                tier = c; down = 0
            }
        } else if c.rawValue > tier.rawValue {  // better
            down = 0
            let cu = p.tierOf(s - p.hysteresis)
            if cu.rawValue > tier.rawValue { up += 1 } else { up = 0 }
            if up >= p.upDwell {
                sink.change(ts: ts, from: tier, to: cu)
                tier = cu; up = 0
            }
        } else {
            up = 0; down = 0
        }
    }

    /// Runs a fresh machine over one connection `[start, end]` whose reports
    /// (already restricted to the connection, in order) all carry a measured
    /// RTT, given as columns: a report without one is cold whatever the
    /// config, and moves nothing, so the tuning corpus keeps none. `mos` is
    /// each report's MOS as `ReportMOS` chooses it (only read for warm
    /// reports). See `TierRun` for what is reported to the sink.
    @inline(__always)
    static func run<Sink: TierSink>(
        measuredTs ts: UnsafeBufferPointer<Int64>,
        mos: UnsafeBufferPointer<Double>, start: Int64, end: Int64,
        _ p: TierParams, _ sink: inout Sink
    ) {
        var run = TierRun(start: start, p)
        for i in 0..<ts.count {
            // Any RTT but 0 is a measured one.
            run.feed(report: i, ts: ts[i], rtt: 1, mos: mos[i], p, &sink)
        }
        run.finish(end: end, p, &sink)
    }
}

/// One connection's run of the tier machine, fed a report at a time, so that
/// a caller may stream a series chunk by chunk (the analysis of a stored
/// client) or loop over flat buffers (`TierMachine.run`, the tuning sweep):
/// both go through these lines.
///
/// Classifies each report cold or warm, steps the machine with the warm
/// ones, and reports each warm report's hold interval
/// `[ts_i, min(next warm ts, ts_i + gapMs, end))`.
struct TierRun {
    private var machine = TierMachine()
    private let warmFrom: Int64
    private var prevTs: Int64 = 0
    private var prevTier = Tier.unknown
    private var hasPrev = false

    /// A fresh machine for a connection opened at `start`.
    init(start: Int64, _ p: TierParams) {
        warmFrom = TierParams.warmFrom(connectionStart: start, coldStartMs: p.coldStartMs)
    }

    /// Feeds report `index` of the connection; returns whether it was warm
    /// (`mos` is only used then).
    @inline(__always) @discardableResult
    mutating func feed<Sink: TierSink>(report index: Int, ts t: Int64, rtt: Double, mos m: Double,
                                       _ p: TierParams, _ sink: inout Sink) -> Bool {
        if !TierParams.isWarm(ts: t, rtt: rtt, warmFrom: warmFrom) {
            sink.cold(report: index)
            return false
        }
        sink.warm(report: index, mos: m)
        // Reports of one connection are in time order, so the previous hold
        // ends at this report at the latest; only the last one needs `end`.
        if hasPrev { sink.hold(prevTier, from: prevTs, to: min(t, prevTs + p.gapMs)) }
        machine.step(ts: t, mos: m, p, &sink)
        prevTs = t; prevTier = machine.tier; hasPrev = true
        return true
    }

    /// Ends the run at the connection's `end`: the last warm report's hold.
    @inline(__always)
    mutating func finish<Sink: TierSink>(end: Int64, _ p: TierParams, _ sink: inout Sink) {
        if hasPrev { sink.hold(prevTier, from: prevTs, to: min(prevTs + p.gapMs, end)) }
    }
}

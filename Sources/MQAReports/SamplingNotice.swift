import MQABase
import MQAAnalysis

/// A warning that quality reports come too seldom for the tier config's
/// `gapMs`: most intervals between a participant's consecutive measured
/// reports are reporting gaps (tiers.md), so the tier restarts from
/// `unknown` after nearly every report and smoothing and dwell never act.
///
/// Jitsi's rtcstats samples every 10.000–10.003 s, just over the default
/// gap of 10 s: imported as they are, such dumps showed a participant
/// "poor 10 s" who is fair for 30 s with a gap of 25 s, and a tier timeline
/// that toggled at every sample, with no word of why. The figures are the
/// spec's either way; the notice says which config reads them as meant.
public struct SamplingNotice: Sendable, Equatable {
    /// The median interval between consecutive warm reports of one
    /// connection, over the meeting's participants.
    public var medianIntervalMs: Int64
    /// Intervals longer than `gapMs`, and all intervals.
    public var gaps: Int
    public var intervals: Int
    public var gapMs: Int64
    /// Two and a half median intervals, to the nearest whole second.
    public var suggestedGapMs: Int64

    /// A notice when at least half of the meeting's intervals (and at least
    /// two) are gaps; nil otherwise.
    public init?(series: [QualitySeries], gapMs: Int64) {
        var deltas: [Int64] = []
        for s in series { deltas += s.intervals }
        let gaps = deltas.count { $0 > gapMs }
        guard gaps >= 2, gaps * 2 >= deltas.count else { return nil }
        deltas.sort()
        medianIntervalMs = NearestRank.value(deltas, percent: 50)!
        self.gaps = gaps
        intervals = deltas.count
        self.gapMs = gapMs
        suggestedGapMs = max(1000, (medianIntervalMs * 5 / 2 + 500) / 1000 * 1000)
    }

    /// One sentence, for md and html.
    public var text: String {
        "quality reports come every \(seconds) s (median), and \(gaps) of \(intervals) "
            + "intervals between a participant's measured reports are longer than the tier config's gapMs "
            + "(\(gapMs) ms): the tier restarts from unknown after nearly every report, so smoothing and dwell never "
            + "act and the times in poor or bad are not what the calls had. Run again with `--config FILE`, FILE "
            + "holding {\"gapMs\": \(suggestedGapMs)} (two and a half intervals)."
    }

    /// The median interval in seconds with one decimal ("10.0").
    var seconds: String {
        let tenths = (medianIntervalMs + 50) / 100
        return "\(tenths / 10).\(tenths % 10)"
    }

    public var json: JSON {
        .object([
            ("text", .string(text)),
            ("medianReportIntervalMs", .int(medianIntervalMs)),
            ("intervalsOverGap", .int(Int64(gaps))),
            ("intervals", .int(Int64(intervals))),
            ("gapMs", .int(gapMs)),
            ("suggestedGapMs", .int(suggestedGapMs)),
        ])
    }
}

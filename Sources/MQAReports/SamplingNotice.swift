import MQABase
import MQAAnalysis

/// A warning that a participant's quality reports come too seldom for the
/// tier config's `gapMs`: most intervals between their consecutive
/// measured reports are reporting gaps (tiers.md), so their tier restarts
/// from `unknown` after nearly every report and smoothing and dwell never
/// act.
///
/// Jitsi's rtcstats samples every 10.000–10.003 s, just over the default
/// gap of 10 s: imported as they are, such dumps showed a participant
/// "poor 10 s" who is fair for 30 s with a gap of 25 s, and a tier timeline
/// that toggled at every sample, with no word of why. The figures are the
/// spec's either way; the notice says which config reads them as meant.
public struct SamplingNotice: Sendable, Equatable {
    /// The participants whose reports come too seldom, in report order.
    public var uids: [String]
    /// The median interval between consecutive warm reports of one
    /// connection, over those participants' intervals.
    public var medianIntervalMs: Int64
    /// Their intervals longer than `gapMs`, and all their intervals.
    public var gaps: Int
    public var intervals: Int
    public var gapMs: Int64
    /// Two and a half median intervals, to the nearest whole second (and
    /// above `gapMs`): the config value that reads such reports as meant.
    public var suggestedGapMs: Int64

    /// A participant samples too seldom when at least three of their
    /// intervals, and at least half, are gaps, and their median interval is
    /// over half the gap: a slow sampler, not a few outages in a call
    /// sampled every 2 s. Decided per participant: pooled, a 2 s
    /// participant hid a 12 s one, or halved the value suggested. Nil when
    /// nobody does.
    public init?(series: some Sequence<QualitySeries>, gapMs: Int64) {
        var uids: [String] = []
        var pooled: [Int64] = []
        var gaps = 0
        for s in series where SamplingNotice.samplesSeldom(s, gapMs: gapMs) {
            uids.append(s.uid)
            pooled += s.intervals
            gaps += s.intervals.count { $0 > gapMs }
        }
        guard !uids.isEmpty else { return nil }
        pooled.sort()
        self.uids = uids
        medianIntervalMs = NearestRank.value(pooled, percent: 50)!
        self.gaps = gaps
        intervals = pooled.count
        self.gapMs = gapMs
        let suggested = (medianIntervalMs * 5 / 2 + 500) / 1000 * 1000
        suggestedGapMs = suggested > gapMs ? suggested : (gapMs / 1000 + 1) * 1000
    }

    /// Whether one participant samples too seldom (the rule above): only
    /// those count, so a reader of many participants keeps only theirs.
    public static func samplesSeldom(_ s: QualitySeries, gapMs: Int64) -> Bool {
        guard maySampleSeldom(intervals: s.intervals.count, gaps: s.intervals.count { $0 > gapMs }) else { return false }
        return NearestRank.value(s.intervals.sorted(), percent: 50)! * 2 > gapMs
    }

    /// The rule's counting half: at least three gaps, and at least half of
    /// all intervals. Only a participant who passes it needs the median.
    public static func maySampleSeldom(intervals: Int, gaps: Int) -> Bool {
        gaps >= 3 && gaps * 2 >= intervals
    }

    /// One sentence, the uids as they are (JSON, and html, which escapes it
    /// whole).
    public var text: String { text(naming: { $0 }) }

    /// The sentence with each uid written by `naming`: md escapes them, as
    /// every uid on its page (a uid is the log's, and could start a heading
    /// or a link, or drive a terminal).
    public func text(naming: (String) -> String) -> String {
        let shown = uids.prefix(3).map(naming).joined(separator: ", ") + (uids.count > 3 ? " and \(uids.count - 3) more" : "")
        return "quality reports of \(shown) come every \(seconds) s (median), and \(gaps) of \(intervals) "
            + "intervals between \(uids.count == 1 ? "its" : "their") measured reports are longer than the tier config's "
            + "gapMs (\(gapMs) ms): the tier restarts from unknown after nearly every report, so smoothing and dwell "
            + "never act and the times in poor or bad are not what the call had. Run again with --config FILE, FILE "
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
            ("uids", .array(uids.map { .string($0) })),
            ("medianReportIntervalMs", .int(medianIntervalMs)),
            ("intervalsOverGap", .int(Int64(gaps))),
            ("intervals", .int(Int64(intervals))),
            ("gapMs", .int(gapMs)),
            ("suggestedGapMs", .int(suggestedGapMs)),
        ])
    }
}

import Foundation
import MQABase

/// The figures `mqa compare` sets side by side, each with the direction
/// that is worse.
public enum CohortMetric: String, Sendable, CaseIterable {
    // The never-rendered share came last: the rows and keys before it
    // keep their places.
    case stallRate, lowTierShare, abnormalDisconnectRate, mosP50, firstFrameP90Ms, neverRenderedShare

    /// Whether a larger value is worse (all but MOS).
    public var higherIsWorse: Bool { self != .mosP50 }

    /// The release gate's metrics (`--fail-if-worse`): stall, tier and
    /// disconnect figures. Video that never renders is the worst stall: a
    /// build that shows no video has no stall rate at all, and must not
    /// pass the gate for it.
    public var gates: Bool {
        self == .stallRate || self == .lowTierShare || self == .abnormalDisconnectRate || self == .neverRenderedShare
    }

    /// The rate this metric is, for the ones with an interval per side.
    var rate: CohortFigures.Rate? {
        switch self {
        case .stallRate: .stall
        case .lowTierShare: .lowTier
        case .abnormalDisconnectRate: .abnormalDisconnect
        case .neverRenderedShare: .neverRendered
        case .mosP50, .firstFrameP90Ms: nil
        }
    }

    /// For the verdict: "B stalls 1.8× as much as A".
    func sentence(a: String, b: String, ratio: String) -> String {
        switch self {
        case .stallRate: "\(b) stalls \(ratio)× as much as \(a)"
        case .lowTierShare: "\(b) spends \(ratio)× as much time at poor/bad as \(a)"
        case .abnormalDisconnectRate: "\(b) drops abnormally \(ratio)× as often as \(a)"
        case .neverRenderedShare: "\(b)'s video never renders \(ratio)× as often as \(a)'s"
        case .mosP50: "\(b)'s median MOS is \(ratio)× \(a)'s"
        case .firstFrameP90Ms: "\(b)'s first frame (p90) takes \(ratio)× as long as \(a)'s"
        }
    }

    /// Words for a table: "stall rate".
    /// A figure of this metric as the tables show it: shares in percent,
    /// MOS to 2 decimals, times in ms.
    public func shown(_ v: Double) -> String {
        switch self {
        case .stallRate, .lowTierShare, .abnormalDisconnectRate, .neverRenderedShare: "\(JSON.number((v * 10_000).rounded() / 100)) %"
        case .mosP50: String(format: "%.2f", v)
        case .firstFrameP90Ms: "\(Int64(v.rounded())) ms"
        }
    }

    public var title: String {
        switch self {
        case .stallRate: "stall rate"
        case .lowTierShare: "time at poor/bad"
        case .abnormalDisconnectRate: "abnormal disconnects"
        case .neverRenderedShare: "never rendered"
        case .mosP50: "MOS p50"
        case .firstFrameP90Ms: "first frame p90"
        }
    }

    func value(_ f: CohortFigures) -> Double? {
        if let rate { return f.value(rate) }
        return self == .mosP50 ? f.mosP50 : f.firstFrameP90Ms.map(Double.init)
    }
}

/// Two values of one field compared (`mqa compare --by FIELD A B`): every
/// metric's figures, the ratio B/A with its bootstrap interval, and
/// whether the difference is significant once corrected for comparing
/// several metrics at once (Holm, `Docs/cohorts.md`).
public struct CohortComparison: Sendable, Equatable {
    public var field: CohortField
    public var a: CohortFigures
    public var b: CohortFigures
    public var metrics: [Metric]
    public var options: BootstrapOptions
    /// How much worse B may be before the gate fails (`compare --margin`),
    /// as a fraction: with 0.05, a stall rate 1.04× A's passes however
    /// significant. A large fleet makes a 1.0001× significant; this is the
    /// regression worth a failed release. 0: any significant regression.
    public var margin = 0.0
    /// The family-wise false-alarm rate the significance is held to.
    public static let alpha = 0.05

    public struct Metric: Sendable, Equatable {
        public var metric: CohortMetric
        public var a: Double?
        public var b: Double?
        /// B / A; `nil` when A is 0 or either is missing.
        public var ratio: Double?
        /// The 95 % percentile interval of the ratio over the resamples
        /// (not corrected: the interval a reader expects).
        public var ratioCI: ConfidenceInterval?
        /// The p-value of "ratio 1" (`BootstrapOptions.pValue`), and Holm's
        /// adjustment of it over all the metrics compared.
        public var p: Double
        public var pAdjusted: Double
        /// Whether both sides have the figure, so that a test was made.
        public var tested: Bool { a != nil && b != nil }
        /// `pAdjusted` below `alpha`.
        public var significant: Bool

        /// Significant, and in the direction that is worse for B. From a
        /// zero A (no ratio) the difference's sign says it.
        public var worse: Bool {
            guard significant else { return false }
            if let r = ratio { return metric.higherIsWorse ? r > 1 : r < 1 }
            guard let a, let b else { return false }
            return metric.higherIsWorse ? b > a : b < a
        }
    }

    public init(_ meetings: [CohortMeeting], by field: CohortField, a: String, b: String,
                options: BootstrapOptions = .default) {
        self.init(meetings.map(CohortMeetingSums.init), by: field, a: a, b: b, options: options)
    }

    /// The same comparison from meetings summed per profile, in meeting id order.
    public init(_ meetings: [CohortMeetingSums], by field: CohortField, a: String, b: String,
                options: BootstrapOptions = .default) {
        self.field = field
        self.options = options
        // Group 0 is A, 1 is B: one resample of meetings serves both, so a
        // meeting with participants of each keeps them together.
        let groups = CohortGroups(meetings, by: field) { _, p -> Int? in
            let v = field.value(of: p)
            return v == a ? 0 : v == b ? 1 : nil
        }
        func figures(_ value: String, _ key: Int) -> CohortFigures {
            guard let g = groups.keys.firstIndex(of: key) else {
                return CohortFigures.point(value: value, sums: CohortSums(), meetings: 0, mos: CohortSamples(), firstFrame: CohortSamples(), options: options)
            }
            return CohortFigures.point(value: value, sums: groups.totals[g], meetings: groups.meetingsPerGroup[g],
                                       mos: groups.mos[g], firstFrame: groups.firstFrame[g], options: options)
        }
        self.a = figures(a, 0)
        self.b = figures(b, 1)
        let ga = groups.keys.firstIndex(of: 0), gb = groups.keys.firstIndex(of: 1)
        let all = CohortMetric.allCases
        var ratios = [[Double]](repeating: [], count: all.count)
        // B − A of each replicate: the test where A's figure is 0 and no
        // ratio exists (a regression from none at all must still gate).
        var differences = [[Double]](repeating: [], count: all.count)
        // Each side's own rates per replicate, for their intervals as
        // `report cohorts` gives them (the same resamples): [side][rate].
        let rates = CohortFigures.Rate.allCases
        var sides = [[[Double]]](repeating: [[Double]](repeating: [], count: rates.count), count: 2)
        if let ga, let gb {
            var sums = [CohortSums](repeating: CohortSums(), count: groups.keys.count)
            for i in all.indices { ratios[i].reserveCapacity(options.replicates) }
            options.forEachReplicate(meetings: groups.meetingCount) { _, counts in
                groups.sums(counts, into: &sums)
                for (i, m) in all.enumerated() {
                    let x: Double, y: Double
                    if let rate = m.rate {
                        (x, y) = (sums[ga].rate(rate), sums[gb].rate(rate))
                        // Each side's own rate too, for its interval.
                        let k = rates.firstIndex(of: rate)!
                        sides[0][k].append(x)
                        sides[1][k].append(y)
                    } else if m == .mosP50 {
                        (x, y) = (groups.mos[ga].percentile(50, counts: counts), groups.mos[gb].percentile(50, counts: counts))
                    } else {
                        (x, y) = (groups.firstFrame[ga].percentile(90, counts: counts),
                                  groups.firstFrame[gb].percentile(90, counts: counts))
                    }
                    ratios[i].append(CohortComparison.ratio(y, over: x))
                    differences[i].append(y - x)
                }
            }
        }
        // As in `report cohorts`, a side seen in one meeting has no
        // interval: resampling one cluster says nothing of the spread.
        func withIntervals(_ f: CohortFigures, side: Int) -> CohortFigures {
            guard !sides[side][0].isEmpty, f.meetings >= 2 else { return f }
            var f = f
            f.setIntervals(options: options) { rate in sides[side][rates.firstIndex(of: rate)!] }
            return f
        }
        self.a = withIntervals(self.a, side: 0)
        self.b = withIntervals(self.b, side: 1)
        let (fa, fb) = (self.a, self.b)
        let points = all.map { m in m.value(fa).flatMap { x in m.value(fb).flatMap { y in x > 0 ? y / x : nil } } }
        // The meetings that hold either cohort: the independent units.
        let clusters = groups.entries.count { !$0.isEmpty }
        // A zero A with a defined B: no ratio, but a difference to test.
        // So too where A (or B) is 0 in more than one resample in ten (a
        // figure that is rare in A): the log ratio is then too often
        // undefined to test, and a regression from nearly none must gate
        // as one from none does.
        let byDifference = all.indices.map { i in
            let m = all[i]
            guard let x = m.value(fa), m.value(fb) != nil else { return false }
            return x == 0 || !BootstrapOptions.mostlyPositive(ratios[i])
        }
        let pValues = all.indices.map { i in
            byDifference[i]
                ? BootstrapOptions.pValue(difference: all[i].value(fb)! - all[i].value(fa)!, replicates: differences[i], clusters: clusters)
                : BootstrapOptions.pValue(ratio: points[i], replicates: ratios[i], clusters: clusters)
        }
        let adjusted = Holm.adjusted(pValues)
        // A side with too little data claims nothing: with two or three
        // meetings the resamples' spread says little (all alike, it is 0
        // and any difference would have p = 0), and a release gate must
        // not fail on four people.
        let enough = !fa.insufficient && !fb.insufficient
        let oneMeetingSide = fa.meetings < 2 || fb.meetings < 2
        metrics = all.enumerated().map { i, m in
            let x = m.value(fa), y = m.value(fb)
            let r = points[i]
            // One meeting on a side gives every resample the same ratio: a
            // zero-width interval that says nothing, as for each side.
            let ci = r == nil || oneMeetingSide ? nil : options.interval(ratios[i])
            // Without a point ratio (or an interval) nothing is claimed,
            // but where the difference is tested, its test decides.
            let significant = enough && (byDifference[i] || (r != nil && ci != nil)) && adjusted[i] < CohortComparison.alpha
            return Metric(metric: m, a: x, b: y, ratio: r, ratioCI: ci, p: pValues[i], pAdjusted: adjusted[i],
                          significant: significant)
        }
    }

    /// B / A of one replicate: 0/0 is "no difference" (1), y/0 infinite,
    /// NaN when either is undefined.
    static func ratio(_ y: Double, over x: Double) -> Double {
        if x.isNaN || y.isNaN { return .nan }
        if x == 0 { return y == 0 ? 1 : .infinity }
        return y / x
    }

    /// Whether B is significantly worse than A on a gating metric, and by
    /// more than `margin`.
    public var failsGate: Bool { metrics.contains { $0.metric.gates && $0.worse && beyondMargin($0) } }

    /// Whether `m`'s ratio is further from 1 than `margin`, on the side that
    /// is worse; a rise from none (no ratio) is beyond any margin.
    public func beyondMargin(_ m: Metric) -> Bool {
        guard let r = m.ratio else { return true }
        return m.metric.higherIsWorse ? r > 1 + margin : r < 1 - margin
    }

    /// One line: the most significant difference, or that there is none.
    /// A gating metric on which B is worse comes first (the headline of a
    /// failed gate names what failed it, not a first-frame time with a
    /// smaller p-value, nor a stall rate that improved), then the smaller
    /// p-value, a gating metric before another, then the larger effect: a
    /// change from none, then the ratio furthest from 1, so a 0 → 33 % rise
    /// in disconnects is not headlined by the 1.001× stall rate it brings
    /// along.
    public var verdict: String {
        let (an, bn) = (a.value ?? "unknown", b.value ?? "unknown")
        var out: String
        func effect(_ m: Metric) -> Double { m.ratio.map { abs(log($0)) } ?? .infinity }
        let significant = metrics.filter(\.significant).sorted {
            func key(_ m: Metric) -> (Int, Double, Int, Double) {
                (m.metric.gates && m.worse ? 0 : 1, m.pAdjusted, m.metric.gates ? 0 : 1, -effect(m))
            }
            return key($0) < key($1)
        }
        if let m = significant.first {
            if m.ratio == 0, let a = m.a {
                // To none: "0× as often" reads as nonsense.
                out = m.metric == .neverRenderedShare
                    ? "\(bn)'s video always rendered, where \(an)'s never rendered in \(m.metric.shown(a)) of subscriptions"
                    : "\(bn) has no \(m.metric.title) where \(an) has \(m.metric.shown(a))"
            } else if let r = m.ratio, let ci = m.ratioCI {
                let (rs, cs) = CohortComparison.shown(r, ci)
                out = m.metric.sentence(a: an, b: bn, ratio: rs) + " (95 % CI \(cs))"
            } else {
                // From a zero A: no ratio to show, the two figures instead.
                out = m.metric == .neverRenderedShare
                    ? "\(bn)'s video never rendered in \(m.metric.shown(m.b ?? 0)) of subscriptions, where \(an)'s always did"
                    : "\(bn) has \(m.metric.title) \(m.metric.shown(m.b ?? 0)) where \(an) has none"
            }
            let more = significant.dropFirst().map(\.metric.title)
            if !more.isEmpty { out += "; also differs on \(more.joined(separator: ", "))" }
        } else {
            let tested = metrics.filter(\.tested)
            out = "No significant difference between \(bn) and \(an) on \(tested.count) metric\(tested.count == 1 ? "" : "s")"
            // A figure one side has and the other not was not compared:
            // said, since "no difference" must not cover it.
            let untested = metrics.filter { !$0.tested && ($0.a != nil || $0.b != nil) }
            let notCompared = [(an, untested.filter { $0.a == nil }), (bn, untested.filter { $0.a != nil })]
                .filter { !$0.1.isEmpty }
                .map { side, list in "\(list.map(\.metric.title).joined(separator: ", ")) not compared: \(side) has none" }
            if !notCompared.isEmpty { out += " (" + notCompared.joined(separator: "; ") + ")" }
            if let s = metrics.first, let r = s.ratio, let ci = s.ratioCI {
                let (rs, cs) = CohortComparison.shown(r, ci)
                out += " (stall rate ×\(rs), 95 % CI \(cs))"
            }
        }
        // A regression the margin lets pass is said, so that the verdict
        // and the exit code agree.
        let tolerated = metrics.filter { $0.metric.gates && $0.worse && !beyondMargin($0) }
        if !tolerated.isEmpty {
            out += "; within the \(JSON.number(margin * 100)) % margin of the gate: "
                + tolerated.map(\.metric.title).joined(separator: ", ")
        }
        if a.insufficient || b.insufficient {
            let few = [a, b].filter(\.insufficient).map { $0.value ?? "unknown" }
            out += "; too little data for \(few.joined(separator: " and "))"
        }
        return out
    }

    /// A ratio as a reader takes it: 2 significant digits (`1.8`, `0.93`,
    /// `12`), or `extra` more.
    public static func shown(_ r: Double, extra: Int = 0) -> String {
        guard r.isFinite else { return "∞" }
        var scale = 1.0
        for _ in 0..<((r >= 10 ? 0 : r >= 1 ? 1 : 2) + extra) { scale *= 10 }
        return JSON.number((r * scale).rounded() / scale)
    }

    /// `1.3–2.4`.
    public static func shown(_ ci: ConfidenceInterval, extra: Int = 0) -> String {
        "\(shown(ci.lower, extra: extra))–\(shown(ci.upper, extra: extra))"
    }

    /// The ratio and its interval with as many digits as it takes (at
    /// most 4 more) for the interval's ends to differ and, where the
    /// interval leaves 1 out, for none of the three to read as 1:
    /// `1.5 (1.3–1.8)`, but `1.54 (1.47–1.61)` for a narrow one, and
    /// `1.04 (1.03–1.05)`, not `1 (1–1.1)`.
    public static func shown(_ r: Double, _ ci: ConfidenceInterval) -> (String, String) {
        let leavesOneOut = ci.lower > 1 || ci.upper < 1
        func readsAsOne(_ x: Double, _ extra: Int) -> Bool { leavesOneOut && x != 1 && shown(x, extra: extra) == "1" }
        var extra = 0
        while extra < 4,
              (ci.lower != ci.upper && shown(ci.lower, extra: extra) == shown(ci.upper, extra: extra))
                || readsAsOne(r, extra) || readsAsOne(ci.lower, extra) || readsAsOne(ci.upper, extra) {
            extra += 1
        }
        return (shown(r, extra: extra), shown(ci, extra: extra))
    }
}

import MQABase

/// One cohort's figures (`mqa report cohorts`): sizes, totals, the rates
/// with their 95 % intervals, and the percentiles.
public struct CohortFigures: Sendable, Equatable {
    /// The value; `nil` for the participants without one ("unknown").
    public var value: String?
    public var participants: Int
    public var meetings: Int
    public var watchedMs: Int64
    public var stalledMs: Int64
    /// Stalled ms per watched ms; `nil` without watched time.
    public var stallRate: Double?
    public var stallRateCI: ConfidenceInterval?
    /// Warm time at poor or bad per warm time at a known tier; `nil`
    /// without any (a CDN cohort has no quality feed).
    public var lowTierShare: Double?
    public var lowTierShareCI: ConfidenceInterval?
    /// Median over participants of each one's median warm MOS.
    public var mosP50: Double?
    /// Share of participants with at least one abnormal disconnect.
    public var abnormalDisconnectRate: Double?
    public var abnormalDisconnectRateCI: ConfidenceInterval?
    /// Nearest-rank p90 of the subscriptions' times to first frame.
    public var firstFrameP90Ms: Int64?
    /// Video subscriptions, and those of them that never showed a frame;
    /// `nil` from partials of an mqa that did not count them.
    public var subscriptions: Int64?
    public var neverRendered: Int64?
    /// Never-rendered subscriptions per subscription; `nil` without any.
    /// Such a subscription adds no watched time, so a cohort whose video
    /// never shows has no stall rate: this is the figure that says so.
    public var neverRenderedShare: Double?
    public var neverRenderedShareCI: ConfidenceInterval?
    /// Seen in too few meetings or by too few participants
    /// (`BootstrapOptions.minMeetings`, `minParticipants`).
    public var insufficient: Bool

    static func point(value: String?, sums s: CohortSums, meetings: Int, mos: CohortSamples,
                      firstFrame: CohortSamples, options: BootstrapOptions) -> CohortFigures {
        func defined(_ x: Double) -> Double? { x.isNaN ? nil : x }
        let ff = firstFrame.percentile(90)
        return CohortFigures(
            value: value, participants: Int(s.participants), meetings: meetings,
            watchedMs: Int64(s.watched), stalledMs: Int64(s.stalled),
            stallRate: defined(s.stallRate), stallRateCI: nil,
            lowTierShare: defined(s.lowTierShare), lowTierShareCI: nil,
            mosP50: defined(mos.percentile(50)),
            abnormalDisconnectRate: defined(s.abnormalDisconnectRate), abnormalDisconnectRateCI: nil,
            firstFrameP90Ms: ff.isNaN ? nil : Int64(ff),
            subscriptions: s.subscriptions.isNaN ? nil : Int64(s.subscriptions),
            neverRendered: s.unrendered.isNaN ? nil : Int64(s.unrendered),
            neverRenderedShare: defined(s.neverRenderedShare), neverRenderedShareCI: nil,
            insufficient: meetings < options.minMeetings || Int(s.participants) < options.minParticipants)
    }

    /// The stall rate as the ranking reads it: infinite where every video
    /// subscription failed to render, -1 without video at all.
    var rankedStallRate: Double {
        if let stallRate { return stallRate }
        if let s = subscriptions, s > 0, neverRendered == s { return .infinity }
        return -1
    }

    /// The rates that carry a bootstrap interval.
    enum Rate: CaseIterable {
        case stall, lowTier, abnormalDisconnect, neverRendered
    }

    /// Rate `r`'s point value (nil when undefined).
    func value(_ r: Rate) -> Double? {
        switch r {
        case .stall: stallRate
        case .lowTier: lowTierShare
        case .abnormalDisconnect: abnormalDisconnectRate
        case .neverRendered: neverRenderedShare
        }
    }

    /// Sets rate `r`'s interval.
    mutating func setInterval(_ r: Rate, _ ci: ConfidenceInterval?) {
        switch r {
        case .stall: stallRateCI = ci
        case .lowTier: lowTierShareCI = ci
        case .abnormalDisconnect: abnormalDisconnectRateCI = ci
        case .neverRendered: neverRenderedShareCI = ci
        }
    }

    /// Each defined rate's interval from its values over the replicates
    /// (`replicates(rate)`); an undefined rate keeps none.
    mutating func setIntervals(options: BootstrapOptions, _ replicates: (Rate) -> [Double]) {
        for r in Rate.allCases where value(r) != nil { setInterval(r, options.interval(replicates(r))) }
    }
}

/// The cohorts of one field over a set of meetings: each value's figures,
/// ranked, and those of the participants without a value.
public struct CohortTable: Sendable, Equatable {
    public var field: CohortField
    /// Values with enough data first, worst stall rate first (ties by
    /// value); then the insufficient ones, by participants.
    public var cohorts: [CohortFigures]
    /// The participants without a value (0 participants when every one
    /// had one).
    public var unknown: CohortFigures
    public var meetings: Int
    public var options: BootstrapOptions
    /// Participants, each once (the cohorts' `participants` add up to more
    /// where a participant's value changed: it counts under each).
    public var people: Int
    /// Participants whose value of `field` changed while they had figures,
    /// each counted under every value it had (`CohortParticipant.pieces`).
    public var splitParticipants: Int

    /// Groups the participants of `meetings` by `field` and bootstraps
    /// every value's intervals from the same resamples of meetings.
    public init(_ meetings: [CohortMeeting], by field: CohortField, options: BootstrapOptions = .default) {
        self.init(meetings.map(CohortMeetingSums.init), by: field, options: options)
    }

    /// The same table from meetings summed per profile (e.g. merged
    /// `CohortPartials`), in the order the store lists them (meeting id):
    /// equal to the table of their participants.
    public init(_ meetings: [CohortMeetingSums], by field: CohortField, options: BootstrapOptions = .default) {
        self.field = field
        self.options = options
        self.meetings = meetings.count
        people = meetings.reduce(0) { $0 + $1.people }
        splitParticipants = meetings.reduce(0) { sum, m in
            sum + m.profiles.reduce(0) { $0 + ($1.profile.scope.splits(field) ? $1.participants : 0) }
        }
        // Unknown is a group of its own (an empty string cannot be a
        // value: event-log strings are 1–256 characters).
        let figures = CohortTable.figures(meetings, by: field, options: options) { _, p in field.value(of: p) ?? "" }
        unknown = figures.first { $0.value == nil }
            ?? CohortFigures.point(value: nil, sums: CohortSums(), meetings: 0, mos: CohortSamples(), firstFrame: CohortSamples(), options: options)
        cohorts = CohortTable.ranked(figures.filter { $0.value != nil }, field: field)
    }

    /// Best to worst is the question's order: the worst value with enough
    /// data first, never one that has too little. A value whose video never
    /// rendered at all has no stall rate but is the worst there is; one
    /// without video comes after every value with a stall rate.
    static func ranked(_ figures: [CohortFigures], field: CohortField) -> [CohortFigures] {
        figures.sorted { a, b in
            if a.insufficient != b.insufficient { return !a.insufficient }
            if a.insufficient { return (a.participants, b.value ?? "") > (b.participants, a.value ?? "") }
            let x = a.rankedStallRate, y = b.rankedStallRate
            if x != y { return x > y }
            return CohortTable.valueLess(a.value ?? "", b.value ?? "", field: field)
        }
    }

    public static func valueLess(_ a: String, _ b: String, field: CohortField) -> Bool {
        field.isVersion ? VersionOrder.less(a, b) : a < b
    }

    /// Each group's figures with the intervals of its three rates; the
    /// key `""` stands for "no value" (`value` nil).
    static func figures(_ meetings: [CohortMeetingSums], by field: CohortField?, options: BootstrapOptions,
                        key: (CohortMeetingSums, CohortProfile) -> String?) -> [CohortFigures] {
        keyedFigures(meetings, by: field, options: options, key: key, value: { $0.isEmpty ? nil : $0 }).map(\.figures)
    }

    /// Each group's key and figures (with the intervals of its three
    /// rates), groups in the order first met; `value` names a key's cohort.
    static func keyedFigures<Key: Hashable>(_ meetings: [CohortMeetingSums], by field: CohortField?,
                                            options: BootstrapOptions,
                                            key: (CohortMeetingSums, CohortProfile) -> Key?,
                                            value: (Key) -> String?) -> [(key: Key, figures: CohortFigures)] {
        let groups = CohortGroups(meetings, by: field, key: key)
        var out = groups.keys.indices.map { g in
            CohortFigures.point(value: value(groups.keys[g]), sums: groups.totals[g],
                                meetings: groups.meetingsPerGroup[g], mos: groups.mos[g], firstFrame: groups.firstFrame[g],
                                options: options)
        }
        let G = groups.keys.count, B = options.replicates
        guard G > 0, B > 0 else { return [] }
        // [rate][group * B + replicate]
        let rates = CohortFigures.Rate.allCases
        var reps = [[Double]](repeating: [Double](repeating: .nan, count: G * B), count: rates.count)
        var sums = [CohortSums](repeating: CohortSums(), count: G)
        options.forEachReplicate(meetings: groups.meetingCount) { r, counts in
            groups.sums(counts, into: &sums)
            for g in 0..<G {
                for (k, rate) in rates.enumerated() { reps[k][g * B + r] = sums[g].rate(rate) }
            }
        }
        // A group of one meeting has no interval: resampling one cluster
        // says nothing of the spread (in a store of one meeting it is drawn
        // in every resample, and the interval was the point itself).
        for g in 0..<G where groups.meetingsPerGroup[g] >= 2 {
            out[g].setIntervals(options: options) { rate in
                Array(reps[rates.firstIndex(of: rate)!][(g * B)..<((g + 1) * B)])
            }
        }
        return groups.keys.indices.map { (groups.keys[$0], out[$0]) }
    }
}

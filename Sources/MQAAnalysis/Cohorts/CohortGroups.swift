import MQABase

/// Additive figures of a set of participants: everything the rates are
/// ratios of. Sums of a meeting's participants are what the bootstrap
/// weighs by how often it drew that meeting.
struct CohortSums: Sendable, Equatable {
    var participants = 0.0
    var watched = 0.0
    var stalled = 0.0
    var low = 0.0
    var measured = 0.0
    /// Participants with at least one abnormal disconnect.
    var dropped = 0.0
    /// Video subscriptions, and those that never showed a frame.
    var subscriptions = 0.0
    var unrendered = 0.0

    mutating func add(_ p: CohortParticipant) {
        participants += 1
        watched += Double(p.watchedMs)
        stalled += Double(p.stalledMs)
        low += Double(p.lowTierMs)
        measured += Double(p.measuredMs)
        if p.abnormalDisconnects > 0 { dropped += 1 }
        subscriptions += Double(p.subscriptions)
        unrendered += Double(p.neverRendered)
    }

    @inline(__always)
    mutating func add(_ s: CohortSums, times c: Double) {
        participants += c * s.participants
        watched += c * s.watched
        stalled += c * s.stalled
        low += c * s.low
        measured += c * s.measured
        dropped += c * s.dropped
        subscriptions += c * s.subscriptions
        unrendered += c * s.unrendered
    }

    /// NaN when undefined (no watched time, no measured time, nobody).
    var stallRate: Double { watched > 0 ? stalled / watched : .nan }
    var lowTierShare: Double { measured > 0 ? low / measured : .nan }
    var abnormalDisconnectRate: Double { participants > 0 ? dropped / participants : .nan }
    var neverRenderedShare: Double { subscriptions > 0 ? unrendered / subscriptions : .nan }

    /// The interval-carrying rates, in `CohortFigures.Rate` order.
    func rate(_ r: CohortFigures.Rate) -> Double {
        switch r {
        case .stall: stallRate
        case .lowTier: lowTierShare
        case .abnormalDisconnect: abnormalDisconnectRate
        case .neverRendered: neverRenderedShare
        }
    }
}

/// Participants of many meetings (summed per profile, `CohortMeetingSums`)
/// split into groups by a key (a cohort value, a period, …), kept per
/// meeting for the cluster bootstrap:
/// each meeting lists the groups it has participants in, with their sums;
/// each group its MOS and first-frame samples tagged with their meeting.
struct CohortGroups<Key: Hashable> {
    var keys: [Key] = []
    var meetingCount: Int
    /// Per meeting: (group, sums of its participants in that group).
    var entries: [[(group: Int, sums: CohortSums)]]
    var totals: [CohortSums] = []
    var meetingsPerGroup: [Int] = []
    /// Per group, ascending, each with its meeting's index.
    var mos: [CohortSamples] = []
    var firstFrame: [CohortSamples] = []

    /// Groups summed profiles: the same groups, sums and samples as the
    /// participants they were summed from give (sums of whole milliseconds
    /// are exact in doubles; samples are sorted by value, and the
    /// percentiles of tied values do not depend on their order).
    /// `key` returns `nil` for a profile left out of every group. Only the
    /// profiles that a grouping `by` the field counts are offered to it
    /// (`CohortProfile.counts(toward:)`; `nil`: the whole fleet), so each
    /// participant is counted once, or once per network by `netType`.
    init(_ meetings: [CohortMeetingSums], by field: CohortField?, key: (CohortMeetingSums, CohortProfile) -> Key?) {
        meetingCount = meetings.count
        entries = []
        entries.reserveCapacity(meetings.count)
        var index: [Key: Int] = [:]
        for (m, meeting) in meetings.enumerated() {
            var here: [(group: Int, sums: CohortSums)] = []
            for p in meeting.profiles {
                guard p.profile.counts(toward: field), let k = key(meeting, p.profile) else { continue }
                let g: Int
                if let known = index[k] {
                    g = known
                } else {
                    g = keys.count
                    index[k] = g
                    keys.append(k)
                    totals.append(CohortSums())
                    meetingsPerGroup.append(0)
                    mos.append(CohortSamples())
                    firstFrame.append(CohortSamples())
                }
                if let i = here.firstIndex(where: { $0.group == g }) {
                    here[i].sums.add(p.sums, times: 1)
                } else {
                    here.append((g, p.sums))
                    meetingsPerGroup[g] += 1
                }
                totals[g].add(p.sums, times: 1)
                for v in p.mos { mos[g].append(v, meeting: m) }
                // A histogram bin is one sample of its multiplicity: the
                // same percentiles as its times one by one, in bounded memory.
                for bin in p.firstFrame { firstFrame[g].append(Double(bin.ms), meeting: m, times: Int32(bin.count)) }
            }
            entries.append(here)
        }
        for g in keys.indices {
            mos[g].sort()
            firstFrame[g].sort()
        }
    }

    /// Each group's sums in one replicate (`counts`: draws per meeting).
    func sums(_ counts: UnsafeBufferPointer<Int32>, into out: inout [CohortSums]) {
        for g in out.indices { out[g] = CohortSums() }
        for m in 0..<meetingCount where counts[m] > 0 {
            let c = Double(counts[m])
            for e in entries[m] { out[e.group].add(e.sums, times: c) }
        }
    }
}

/// Samples of one group (MOS medians, first-frame times), each tagged with
/// its meeting and how many times it occurs, kept as parallel arrays: the
/// bootstrap walks them once per resample.
struct CohortSamples: Sendable, Equatable {
    private(set) var values: [Double] = []
    private(set) var meetings: [Int32] = []
    private(set) var multiplicity: [Int32] = []

    var isEmpty: Bool { values.isEmpty }

    mutating func append(_ value: Double, meeting: Int, times: Int32 = 1) {
        values.append(value)
        meetings.append(Int32(meeting))
        multiplicity.append(times)
    }

    /// Ascending by value (ties in the order appended).
    mutating func sort() {
        let order = values.indices.sorted { (values[$0], $0) < (values[$1], $1) }
        values = order.map { values[$0] }
        meetings = order.map { meetings[$0] }
        multiplicity = order.map { multiplicity[$0] }
    }

    /// The nearest-rank `percent` percentile of the sorted samples, each
    /// counted its multiplicity times and weighted by its meeting's draws
    /// (`counts`; nil: all 1, the plain percentile); NaN when nothing is
    /// left. Tied values are equal, so their order cannot change it.
    func percentile(_ percent: Int, counts: UnsafeBufferPointer<Int32>? = nil) -> Double {
        guard !values.isEmpty else { return .nan }
        return meetings.withUnsafeBufferPointer { m in
            multiplicity.withUnsafeBufferPointer { k in
                func weight(_ i: Int) -> Int { Int(k[i]) * (counts.map { Int($0[Int(m[i])]) } ?? 1) }
                var total = 0
                for i in 0..<m.count { total += weight(i) }
                guard total > 0 else { return .nan }
                let rank = NearestRank.rank(percent: percent, count: total)
                var seen = 0
                for i in 0..<m.count {
                    seen += weight(i)
                    if seen >= rank { return values[i] }
                }
                return values[values.count - 1]
            }
        }
    }
}

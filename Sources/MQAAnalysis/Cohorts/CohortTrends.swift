import MQABase

/// How `mqa report trends` buckets meetings by their start: calendar days
/// (or ISO weeks) of a zone, UTC unless `--tz` names another.
public enum TrendPeriod: String, Sendable, CaseIterable {
    case day, week

    /// The first instant of the period holding `ms`: midnight, or Monday
    /// midnight (ISO weeks), on the wall clock of `zone`.
    public func start(of ms: Int64, in zone: ClockZone = .utc) -> Int64 {
        let day = zone.day(of: ms)
        switch self {
        case .day: return zone.midnight(day: day)
        case .week:
            // 1970-01-01 was a Thursday: day 0 is weekday 3 counting Monday as 0.
            let weekday = ((day + 3) % 7 + 7) % 7
            return zone.midnight(day: day - weekday)
        }
    }
}

/// The fleet's figures per period (`mqa report trends`), optionally split
/// by a cohort field: each (period, value) with the figures and 95 %
/// intervals of `CohortTable` (the same bootstrap over meetings, one set of
/// resamples for all rows).
public struct TrendTable: Sendable, Equatable {
    public var every: TrendPeriod
    public var field: CohortField?
    /// By period, then (with a field) by value in the field's order, the
    /// participants without one last.
    public var rows: [Row]
    /// Meetings without a start (nothing logged with a time) are left out.
    public var meetings: Int
    public var options: BootstrapOptions
    /// Whose calendar the periods follow.
    public var zone: ClockZone

    public struct Row: Sendable, Equatable {
        /// The period's first instant, ms UTC.
        public var periodStart: Int64
        public var figures: CohortFigures
    }

    struct Key: Hashable {
        var period: Int64
        var value: String?
    }

    public init(_ meetings: [CohortMeeting], every: TrendPeriod, by field: CohortField? = nil,
                options: BootstrapOptions = .default, zone: ClockZone = .utc) {
        self.init(meetings.map(CohortMeetingSums.init), every: every, by: field, options: options, zone: zone)
    }

    /// The same table from meetings summed per profile (e.g. merged
    /// `CohortPartials`), in meeting id order.
    public init(_ meetings: [CohortMeetingSums], every: TrendPeriod, by field: CohortField? = nil,
                options: BootstrapOptions = .default, zone: ClockZone = .utc) {
        self.every = every
        self.field = field
        self.options = options
        self.zone = zone
        let dated = meetings.filter { $0.start != nil }
        self.meetings = dated.count
        let keyed = CohortTable.keyedFigures(dated, by: field, options: options, key: { m, p -> Key? in
            Key(period: every.start(of: m.start!, in: zone), value: field?.value(of: p))
        }, value: { $0.value })
        rows = keyed.sorted { a, b in
            if a.key.period != b.key.period { return a.key.period < b.key.period }
            switch (a.key.value, b.key.value) {
            case (nil, _): return false
            case (_, nil): return true
            case let (x?, y?): return CohortTable.valueLess(x, y, field: field ?? .platform)
            }
        }.map { Row(periodStart: $0.key.period, figures: $0.figures) }
    }

    /// The values present, in the field's order (none without a field).
    public var values: [String?] {
        var seen: [String?] = []
        for r in rows where !seen.contains(r.figures.value) { seen.append(r.figures.value) }
        return seen.sorted { a, b in
            switch (a, b) {
            case (nil, _): return false
            case (_, nil): return true
            case let (x?, y?): return CohortTable.valueLess(x, y, field: field ?? .platform)
            }
        }
    }
}

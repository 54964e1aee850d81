import MQABase

/// Who a participant was, as every cohort field sees it: the meeting's
/// `engine` and the format 1.2 client fields. Two participants of one
/// meeting with the same profile fall in the same cohort whatever the
/// field, so their figures can be summed before any grouping.
public struct CohortProfile: Hashable, Sendable {
    /// One value per `CohortField.allCases`, in that order; `nil` when never logged.
    public private(set) var values: [String?]
    /// Which groupings count these participants: a participant split by a
    /// field (its value changed, `CohortParticipant.pieces`) is counted
    /// whole by every other field, and by that field as one piece per value.
    public private(set) var scope: Scope = .all

    public enum Scope: Hashable, Sendable {
        /// Every grouping (no field of the participant changed).
        case all
        /// Every grouping but these fields' (a participant split by them),
        /// in `CohortField.allCases` order.
        case whole(split: [CohortField])
        /// Only this field's (one value's piece of such a participant).
        case piece(of: CohortField)

        /// Scopes in a fixed order: all, whole, piece, then by field.
        static func less(_ a: Scope, _ b: Scope) -> Bool {
            func key(_ s: Scope) -> [Int] {
                switch s {
                case .all: [0]
                case .whole(let fields): [1] + fields.map { CohortField.allCases.firstIndex(of: $0)! }
                case .piece(let field): [2, CohortField.allCases.firstIndex(of: field)!]
                }
            }
            return key(a).lexicographicallyPrecedes(key(b))
        }

        /// Whether this is one value's piece of a participant.
        public var isPiece: Bool { if case .piece = self { true } else { false } }

        /// Whether a participant counted whole here was split by `field`.
        public func splits(_ field: CohortField) -> Bool {
            if case .whole(let fields) = self { fields.contains(field) } else { false }
        }
    }

    public init(engine: String?, client: ParticipantContext.ClientInfo, scope: Scope = .all) {
        self.scope = scope
        values = CohortField.allCases.map { $0 == .engine ? engine : client[$0] }
    }

    /// `values` in `CohortField.allCases` order; `nil` when there are not
    /// as many.
    public init?(values: [String?], scope: Scope = .all) {
        guard values.count == CohortField.allCases.count else { return nil }
        self.values = values
        self.scope = scope
    }

    /// Whether a grouping by `field` (by nothing: the whole fleet, e.g.
    /// trends without `--by`) counts these participants.
    public func counts(toward field: CohortField?) -> Bool {
        switch scope {
        case .all: true
        case .whole(let split): field.map { !split.contains($0) } ?? true
        case .piece(let f): field == f
        }
    }

    public func value(_ field: CohortField) -> String? {
        values[CohortField.allCases.firstIndex(of: field)!]
    }

    /// Profiles in a fixed order (field by field, a missing value first),
    /// so that a meeting's profiles are listed the same way from any source.
    static func less(_ a: CohortProfile, _ b: CohortProfile) -> Bool {
        for (x, y) in zip(a.values, b.values) where x != y {
            guard let x else { return true }
            guard let y else { return false }
            return Array(x.utf8).lexicographicallyPrecedes(y.utf8)
        }
        return Scope.less(a.scope, b.scope)
    }
}

/// The figures of one meeting's participants of one profile, added up:
/// the sums every rate is a ratio of, each participant's median MOS, and
/// the first-frame times as a 1 ms histogram. Everything a cohort table
/// reads from a participant is here, so a table built from these is the
/// table built from the participants (`CohortGroups`).
public struct CohortProfileSums: Sendable, Equatable {
    public var profile: CohortProfile
    var sums: CohortSums
    /// The participants' median warm MOS (those that have one), ascending.
    public var mos: [Double]
    /// Subscribe → first frame times: (ms, how many), ascending by ms.
    public var firstFrame: [FirstFrameBin]

    public struct FirstFrameBin: Sendable, Equatable {
        public var ms: Int64
        public var count: Int
    }

    public var participants: Int { Int(sums.participants) }
    public var watchedMs: Int64 { Int64(sums.watched) }
    public var stalledMs: Int64 { Int64(sums.stalled) }
    public var lowTierMs: Int64 { Int64(sums.low) }
    public var measuredMs: Int64 { Int64(sums.measured) }
    /// Participants with at least one abnormal disconnect.
    public var dropped: Int { Int(sums.dropped) }
    /// Video subscriptions, and those of them that never showed a frame;
    /// `nil` when not counted (partials of an older mqa).
    public var subscriptions: Int64? { sums.subscriptions.isNaN ? nil : Int64(sums.subscriptions) }
    public var neverRendered: Int64? { sums.unrendered.isNaN ? nil : Int64(sums.unrendered) }

    /// From the file of `CohortPartials` (counts as written); `nil` when a
    /// count is negative, there are more MOS values or dropped participants
    /// than participants, more never-rendered subscriptions than
    /// subscriptions, or the histogram is not ascending with positive counts.
    /// `render` nil: the two counts are unknown (an older mqa's partials),
    /// held as NaN so that every sum and share made of them is undefined.
    init?(profile: CohortProfile, participants: Int64, watchedMs: Int64, stalledMs: Int64, lowTierMs: Int64,
          measuredMs: Int64, dropped: Int64, render: (subscriptions: Int64, neverRendered: Int64)?,
          mos: [Double], firstFrame: [FirstFrameBin]) {
        guard participants > 0, watchedMs >= 0, stalledMs >= 0, lowTierMs >= 0, measuredMs >= 0,
              (0...participants).contains(dropped),
              render.map({ $0.subscriptions >= 0 && (0...$0.subscriptions).contains($0.neverRendered) }) ?? true,
              mos.count <= participants, mos.allSatisfy(\.isFinite),
              firstFrame.allSatisfy({ $0.count > 0 }),
              zip(firstFrame, firstFrame.dropFirst()).allSatisfy({ $0.ms < $1.ms }) else { return nil }
        self.profile = profile
        sums = CohortSums(participants: Double(participants), watched: Double(watchedMs), stalled: Double(stalledMs),
                          low: Double(lowTierMs), measured: Double(measuredMs), dropped: Double(dropped),
                          subscriptions: render.map { Double($0.subscriptions) } ?? .nan,
                          unrendered: render.map { Double($0.neverRendered) } ?? .nan)
        self.mos = mos.sorted()
        self.firstFrame = firstFrame
    }

    init(profile: CohortProfile, participants: [CohortParticipant]) {
        self.profile = profile
        sums = CohortSums()
        var mos: [Double] = []
        var times: [Int64: Int] = [:]
        for p in participants {
            sums.add(p)
            if let v = p.mosP50 { mos.append(v) }
            for f in p.firstFrameMs { times[f, default: 0] += 1 }
        }
        self.mos = mos.sorted()
        firstFrame = times.sorted { $0.key < $1.key }.map { FirstFrameBin(ms: $0.key, count: $0.value) }
    }
}

/// One meeting's cohort figures summed per profile: the unit the intervals
/// resample, with no participant's own figures in it. What `mqa report
/// cohorts --partials` writes per meeting (`CohortPartials`).
public struct CohortMeetingSums: Sendable, Equatable {
    public var meeting: String
    /// The first event time (`CohortMeeting.start`).
    public var start: Int64?
    /// One entry per profile seen, in `CohortProfile.less` order.
    public var profiles: [CohortProfileSums]

    /// The participants, each once: a piece of one is not another.
    public var people: Int { profiles.reduce(0) { $0 + ($1.profile.scope.isPiece ? 0 : $1.participants) } }

    public init(_ m: CohortMeeting) {
        meeting = m.meeting
        start = m.start
        var order: [CohortProfile] = []
        var byProfile: [CohortProfile: [CohortParticipant]] = [:]
        func add(_ p: CohortParticipant, _ scope: CohortProfile.Scope) {
            let profile = CohortProfile(engine: p.engine, client: p.client, scope: scope)
            if byProfile[profile] == nil { order.append(profile) }
            byProfile[profile, default: []].append(p)
        }
        for p in m.participants {
            if p.pieces.isEmpty {
                add(p, .all)
            } else {
                add(p, .whole(split: p.splitFields))
                for piece in p.pieces { add(piece, .piece(of: piece.pieceOf!)) }
            }
        }
        profiles = order.sorted(by: CohortProfile.less).map { CohortProfileSums(profile: $0, participants: byProfile[$0]!) }
    }

    init(meeting: String, start: Int64?, profiles: [CohortProfileSums]) {
        self.meeting = meeting
        self.start = start
        self.profiles = profiles.sorted { CohortProfile.less($0.profile, $1.profile) }
    }
}

extension CohortField {
    /// The field's value for one profile; `nil` when it was never logged.
    public func value(of p: CohortProfile) -> String? { p.value(self) }
}


import MQABase
import MQAModel

/// A connection-quality tier as the tier engine recomputes it.
///
/// The raw value is the spec's rank (`bad` 0 … `excellent` 4) so that the
/// state machine and the tuning kernel compare plain integers; `unknown`
/// (no warm data yet, or a reporting gap) is -1 and is never compared by
/// rank: the machine only ranks known tiers.
public enum Tier: Int8, CaseIterable, Sendable, Hashable, Comparable {
    case unknown = -1
    case bad = 0
    case poor = 1
    case fair = 2
    case good = 3
    case excellent = 4

    /// The five known tiers, best first, then `unknown`: the order of every
    /// `tierMs` object in JSON output.
    public static let reportOrder: [Tier] = [.excellent, .good, .fair, .poor, .bad, .unknown]

    /// Rank of a known tier (bad 0 … excellent 4); `nil` for `unknown`.
    public var rank: Int? { self == .unknown ? nil : Int(rawValue) }

    /// `true` for every tier except `unknown`.
    public var isKnown: Bool { self != .unknown }

    /// The lowercase name used in JSON and on the command line.
    public var name: String {
        switch self {
        case .excellent: "excellent"
        case .good: "good"
        case .fair: "fair"
        case .poor: "poor"
        case .bad: "bad"
        case .unknown: "unknown"
        }
    }

    /// Looks a tier up by name, case-insensitively (SDKs capitalise freely).
    public init?(name: String) {
        let lower = name.lowercased()
        guard let t = Tier.allCases.first(where: { $0.name == lower }) else { return nil }
        self = t
    }

    /// Orders by rank, `unknown` lowest. Only for sorting and display; the
    /// state machine never compares against `unknown`.
    public static func < (a: Tier, b: Tier) -> Bool { a.rawValue < b.rawValue }
}

/// Per-tier millisecond totals, one slot per `Tier` (indexed by raw value + 1).
public struct TierDurations: Sendable, Equatable {
    /// Slot 0 is `unknown`, slots 1...5 are `bad`...`excellent`.
    public private(set) var slots: [Int64] = [0, 0, 0, 0, 0, 0]

    public init() {}

    public subscript(tier: Tier) -> Int64 {
        get { slots[Int(tier.rawValue) + 1] }
        set { slots[Int(tier.rawValue) + 1] = newValue }
    }

    /// Sum over all six tiers.
    public var total: Int64 { slots.reduce(0, +) }

    /// Sum over the five known tiers ("warm connection time").
    public var known: Int64 { total - self[.unknown] }

    /// Adds another set of totals slot by slot.
    public mutating func add(_ other: TierDurations) {
        for i in 0..<slots.count { slots[i] += other.slots[i] }
    }

    /// `{"excellent": …, "good": …, "fair": …, "poor": …, "bad": …, "unknown": …}`.
    public var json: JSON {
        .object(Tier.reportOrder.map { ($0.name, .int(self[$0])) })
    }
}

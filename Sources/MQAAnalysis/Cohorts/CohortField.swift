import MQABase
import MQAModel

/// What a cohort groups participants by: one of the format 1.2 client
/// fields of `meeting_join`, or the meeting's `engine` (`Docs/cohorts.md`).
public enum CohortField: String, Sendable, CaseIterable {
    case platform, osVersion, sdkVersion, appVersion, device, netType, engine

    /// The field's value for one participant; `nil` when it was never logged.
    public func value(of p: CohortParticipant) -> String? {
        switch self {
        case .platform: p.client.platform
        case .osVersion: p.client.osVersion
        case .sdkVersion: p.client.sdkVersion
        case .appVersion: p.client.appVersion
        case .device: p.client.device
        case .netType: p.client.netType
        case .engine: p.engine
        }
    }

    /// The words `--by` takes, in the spec's order.
    public static var names: [String] { allCases.map(\.rawValue) }

    /// Whether values of this field are versions, compared as dotted
    /// numbers (`5.10.0` > `5.9.2`, event-log.md 1.2).
    public var isVersion: Bool { self == .osVersion || self == .sdkVersion || self == .appVersion }
}

/// The event log's version order: dotted parts compared as numbers when
/// both are numeric, else as text; a shorter version that is a prefix of
/// a longer one comes first (`5.3` < `5.3.0`).
public enum VersionOrder {
    public static func less(_ a: String, _ b: String) -> Bool {
        let x = a.split(separator: ".", omittingEmptySubsequences: false)
        let y = b.split(separator: ".", omittingEmptySubsequences: false)
        for (p, q) in zip(x, y) where p != q {
            if let m = UInt64(p), let n = UInt64(q) { if m != n { return m < n } else { continue } }
            return p < q
        }
        return x.count != y.count ? x.count < y.count : a < b
    }
}

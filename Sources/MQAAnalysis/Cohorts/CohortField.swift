import MQABase
import MQAModel

/// What a cohort groups participants by: one of the format 1.2 client
/// fields of `meeting_join`, or the meeting's `engine` (`Docs/cohorts.md`).
public enum CohortField: String, Sendable, CaseIterable {
    case platform, osVersion, sdkVersion, appVersion, device, netType, engine

    /// The field's value for one participant; `nil` when it was never logged.
    public func value(of p: CohortParticipant) -> String? {
        self == .engine ? p.engine : p.client[self]
    }

    /// Whether a client's value can change within one meeting: every
    /// client field can (a rejoin may name another, `network_change` moves
    /// `netType`); `engine` is the meeting's.
    public var changesInCall: Bool { self != .engine }

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
            if let numeric = numericLess(p, q) {
                if numeric.equal { continue }
                return numeric.less
            }
            return p < q
        }
        return x.count != y.count ? x.count < y.count : a < b
    }

    /// Two parts of ASCII digits compared as numbers of any length (a part
    /// past 64 bits was compared as text, and 5.10.0 then sorted before
    /// 5.9); nil when either is not all digits.
    static func numericLess(_ p: Substring, _ q: Substring) -> (less: Bool, equal: Bool)? {
        func digits(_ s: Substring) -> Substring? {
            guard !s.isEmpty, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            let trimmed = s.drop { $0 == "0" }
            return trimmed
        }
        guard let m = digits(p), let n = digits(q) else { return nil }
        if m.count != n.count { return (m.count < n.count, false) }
        if m == n { return (false, true) }
        return (m < n, false)
    }
}

import MQABase
import MQAModel

/// Milliseconds of warm tier time during which the SDK's own tier was known,
/// and how many of them it named the same tier as the recomputed one.
public struct TierAgreement: Sendable, Equatable {
    public var knownMs: Int64 = 0
    public var matchingMs: Int64 = 0

    public init(knownMs: Int64 = 0, matchingMs: Int64 = 0) {
        self.knownMs = knownMs
        self.matchingMs = matchingMs
    }

    /// The share of agreement; `nil` when there is no such time.
    public var ratio: Double? { knownMs > 0 ? Double(matchingMs) / Double(knownMs) : nil }

    public mutating func add(_ other: TierAgreement) {
        knownMs += other.knownMs
        matchingMs += other.matchingMs
    }
}

extension ClientLog {
    /// Agreement between the SDK's `connection_quality_change` tiers and the
    /// recomputed `holds` within one connection.
    ///
    /// Each SDK tier holds from its event to the next one in the same
    /// connection, or the connection's end. An SDK tier named `unknown` (any
    /// case) counts as the SDK's tier not being known. Names are compared
    /// case-insensitively; a name outside our five tiers simply never agrees.
    func sdkTierAgreement(in span: ConnectionSpan, holds: [TierHold]) -> TierAgreement {
        var sdk: [(ts: Int64, name: String)] = []
        for e in events[span.events] {
            if e.payload.kind == .connectionQualityChange, let tier = e.payload.string("tier") { sdk.append((e.ts, tier.lowercased())) }
        }
        var tally = TierAgreement()
        var h = 0
        for (k, change) in sdk.enumerated() where change.name != Tier.unknown.name {
            let a = change.ts
            let b = k + 1 < sdk.count ? sdk[k + 1].ts : span.end
            guard b > a else { continue }
            while h < holds.count, holds[h].to <= a { h += 1 }
            var j = h
            while j < holds.count, holds[j].from < b {
                let overlap = min(b, holds[j].to) - max(a, holds[j].from)
                if overlap > 0 {
                    tally.knownMs += overlap
                    if holds[j].tier.name == change.name { tally.matchingMs += overlap }
                }
                j += 1
            }
        }
        return tally
    }
}

extension ClientLog {
    /// The SDK's own tier over time (`connection_quality_change`), by the
    /// rule of `sdkTierAgreement`: each change holds to the next one in its
    /// connection or the connection's end. A name outside the five tiers,
    /// or `unknown`, leaves its stretch out (the SDK's tier was not known).
    public func sdkTierHolds() -> [TierHold] { sdkTierHolds(spans: connectionSpans()) }

    /// `sdkTierHolds()` of the client whose connections are `spans`
    /// (`ConnectedReports.spans`: its reports need not be held).
    public func sdkTierHolds(spans: [ConnectionSpan]) -> [TierHold] {
        var out: [TierHold] = []
        for span in spans {
            let changes = events[span.events].filter { $0.payload.kind == .connectionQualityChange }
            for (k, e) in changes.enumerated() {
                let to = k + 1 < changes.count ? changes[k + 1].ts : span.end
                guard let name = e.payload.string("tier"), let tier = Tier(name: name), tier.isKnown, to > e.ts else { continue }
                out.append(TierHold(tier: tier, from: e.ts, to: to))
            }
        }
        return out
    }
}

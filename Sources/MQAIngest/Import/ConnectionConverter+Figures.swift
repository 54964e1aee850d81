import MQABase
import MQAModel
import MQAStore

// The quality report's figures that need more than one report: the
// sender's side of an interval that only sent, the round trip, SSRC text.
extension ConnectionConverter {
    /// The sender's side of an interval that only sent: loss from the
    /// remote-inbound reports' `fractionLost` (their mean, in hundredths of
    /// a percent, halves up, clamped; nil when no report has one), jitter
    /// the largest audio one.
    static func senderSide(_ sample: StatsSample) -> (loss: Int128?, jitter: Int64?) {
        var sum: Int128 = 0
        var count: Int128 = 0
        var jitter: Int64? = nil
        for (_, r) in sample.reports where r.category == .remoteInbound {
            if let f = r.number(.fractionLost) {
                sum = sum &+? f.raw
                count += 1
            }
            if r.isKind("audio"), let j = r.number(.jitter) { jitter = max(jitter ?? 0, j.millisecondsHalfUp) }
        }
        guard count > 0 else { return (nil, jitter) }
        // 100 · mean fraction, in hundredths: 10⁴ · sum / n, halves up.
        let h = Fixed.floorDiv((20_000 &*? sum) &+? (count &*? Fixed.one), 2 &*? count &*? Fixed.one)
        return (min(10_000, max(0, h)), jitter)
    }

    /// The rtt rule: the selected candidate pair's current RTT, else the
    /// mean remote-inbound RTT; ms, at least 1 when measured.
    static func roundTrip(_ sample: StatsSample, _ report: (String) -> StatsReport?) -> Int64 {
        let named = transportPairIDs(sample)
        for rule in PairRule.allCases {
            var best: (rtt: Fixed, traffic: Fixed)? = nil
            for (id, r) in sample.reports where r.category == .candidatePair && rule.matches(id, r, named: named) {
                guard let rtt = r.number(.currentRoundTripTime), rtt.isPositive else { continue }
                let traffic = (r.number(.bytesReceived) ?? .zero) + (r.number(.bytesSent) ?? .zero)
                if best == nil || traffic > best!.traffic { best = (rtt, traffic) }
            }
            if let best { return max(1, best.rtt.millisecondsHalfUp) }
        }
        var sum: Int128 = 0
        var count: Int128 = 0
        for (_, r) in sample.reports where r.category == .remoteInbound {
            guard let rtt = r.number(.roundTripTime), rtt.isPositive else { continue }
            sum = sum &+? rtt.raw
            count += 1
        }
        guard count > 0 else { return 0 }
        // mean·1000, halves up, on the exact sum.
        let ms = Fixed.floorDiv((2000 &*? sum) &+? (count &*? Fixed.one), 2 &*? count &*? Fixed.one)
        return max(1, Int64(clamping: ms))
    }

    static func ssrcText(_ v: StatsValue?) -> String? {
        switch v {
        case .number(let n): return String(Fixed.floorDiv(n.raw, Fixed.one))
        case .text(let t): return t
        default: return nil
        }
    }
}

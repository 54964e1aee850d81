import MQABase
import MQAModel

/// The issue codes of a meeting report (after Twilio's call tags).
public enum IssueCode: String, Sendable, CaseIterable {
    case lowMOS = "low_mos"
    case highPacketLoss = "high_packet_loss"
    case highLatency = "high_latency"
    case highJitter = "high_jitter"
    case videoStalls = "video_stalls"
    case stallsUnderGoodTier = "stalls_under_good_tier"
    case neverRendered = "never_rendered"
    case slowFirstFrame = "slow_first_frame"
    case reconnects = "reconnects"
    case abnormalDisconnect = "abnormal_disconnect"
    case noQualityData = "no_quality_data"
}

/// The thresholds of `Docs/cli.md`; an issue is raised when the value is
/// strictly beyond them. The issue texts are built from these values.
public enum IssueThresholds {
    public static let lowMOSMean = 3.5
    public static let lossP95Pct = 5.0
    public static let rttP95Ms = 400.0
    public static let jitterP95Ms = 30.0
    public static let stallRatio = 0.05
    public static let firstFrameMs: Int64 = 3000
}

/// One finding of a meeting report.
public struct Issue: Sendable, Equatable {
    public var code: IssueCode
    /// The participant concerned (the subscriber for track issues); `nil`
    /// for a meeting-wide issue (`no_quality_data`).
    public var uid: String?
    /// For track issues: the publisher and track.
    public var publisher: String?
    public var track: String?
    /// The measured value and the threshold it crossed (threshold issues).
    public var value: Double?
    public var threshold: Double?
    /// When it happened (ms), for issues about an instant.
    public var ts: Int64?
    /// How many times, for issues that count events.
    public var count: Int?
    /// One human-readable line.
    public var detail: String

    public init(code: IssueCode, uid: String?, publisher: String? = nil, track: String? = nil,
                value: Double? = nil, threshold: Double? = nil, ts: Int64? = nil, count: Int? = nil, detail: String) {
        self.code = code
        self.uid = uid
        self.publisher = publisher
        self.track = track
        self.value = value
        self.threshold = threshold
        self.ts = ts
        self.count = count
        self.detail = detail
    }

    /// `{"code", "uid", …numbers, "detail"}`: `value`/`threshold` for
    /// threshold issues, `ts` and/or `count` for the others, and
    /// `"publisher"`/`"track"` for track issues. A program needs no prose.
    public var json: JSON {
        var fields: [(String, JSON)] = [("code", .string(code.rawValue)), ("uid", .optional(uid))]
        if let track {
            fields.append(("publisher", .optional(publisher)))
            fields.append(("track", .string(track)))
        }
        if let value {
            let places = IssueFinder.places(value, from: JSON.Places.ratio, beside: threshold)
            fields.append(("value", places.map { .rounded(value, places: $0) } ?? .double(value)))
        }
        if let threshold { fields.append(("threshold", .double(threshold))) }
        if let ts { fields.append(("ts", .int(ts))) }
        if let count { fields.append(("count", .int(Int64(count)))) }
        fields.append(("detail", .string(detail)))
        return .object(fields)
    }
}

/// A participant issue raised when one statistic is beyond its threshold:
/// the rule and the words of its detail in one row, so the text can never
/// restate a threshold the check does not use.
struct ThresholdRule: Sendable {
    var code: IssueCode
    var threshold: Double
    /// What is measured, as the detail names it: `p95 loss`.
    var measure: String
    /// Appended to both numbers: `%`, ` ms`, or nothing.
    var unit: String
    /// Raised below the threshold (`low_mos`) instead of above it.
    var below = false
    var value: @Sendable (ParticipantAnalysis) -> Double?

    /// `p95 loss 7.5% (> 5%)` when `p` crosses the threshold.
    func issue(_ p: ParticipantAnalysis) -> Issue? {
        guard let v = value(p), below ? v < threshold : v > threshold else { return nil }
        let detail = "\(measure) \(IssueFinder.short(v, beside: threshold))\(unit) (\(below ? "<" : ">") \(IssueFinder.short(threshold))\(unit))"
        return Issue(code: code, uid: p.uid, value: v, threshold: threshold, detail: detail)
    }
}

enum IssueFinder {
    typealias T = IssueThresholds

    /// The threshold issues of a participant, in report order.
    static let participantRules = [
        ThresholdRule(code: .lowMOS, threshold: T.lowMOSMean, measure: "mean MOS", unit: "", below: true) { $0.mos?.mean },
        ThresholdRule(code: .highPacketLoss, threshold: T.lossP95Pct, measure: "p95 loss", unit: "%") { $0.lossPct?.p95 },
        ThresholdRule(code: .highLatency, threshold: T.rttP95Ms, measure: "p95 RTT", unit: " ms") { $0.rttMs?.p95 },
        ThresholdRule(code: .highJitter, threshold: T.jitterP95Ms, measure: "p95 jitter", unit: " ms") { $0.jitterMs?.p95 },
    ]

    /// Issues in a stable order: the meeting-wide one, then per participant
    /// (uid order), then per track (subscription order).
    /// `start`: the meeting's first event, where the meeting-wide issue is.
    static func issues(cdn: Bool, start: Int64?, participants: [ParticipantAnalysis], subscriptions: [Subscription]) -> [Issue] {
        var out: [Issue] = []
        if cdn {
            // Its numbers: since when, and for how many participants.
            out.append(Issue(code: .noQualityData, uid: nil, ts: start, count: participants.count,
                             detail: "no quality data (CDN engine)"))
        }
        for p in participants {
            out += participantRules.compactMap { $0.issue(p) }
            if p.reconnects > 0 {
                out.append(Issue(code: .reconnects, uid: p.uid, ts: p.firstReconnectTs, count: p.reconnects,
                                 detail: p.reconnects == 1 ? "1 reconnect" : "\(p.reconnects) reconnects"))
            }
            let abnormal = p.disconnects.filter { $0.error != nil }
            if let first = abnormal.first {
                let what = "\(first.reason): \(first.error!) at \(Time.iso(first.ts))"
                let detail = abnormal.count == 1
                    ? "abnormal disconnect (\(what))"
                    : "\(abnormal.count) abnormal disconnects, first (\(what))"
                out.append(Issue(code: .abnormalDisconnect, uid: p.uid, ts: first.ts, count: abnormal.count, detail: detail))
            }
        }
        for s in subscriptions { out += s.issues }
        return out
    }

    /// At most two decimals, no trailing zeros: `7.5`, `3.21`, `450`;
    /// more where two would read as `threshold` or past it the other way.
    static func short(_ x: Double, beside threshold: Double? = nil) -> String {
        JSON.number(places(x, from: 2, beside: threshold).map { JSON.roundedValue(x, places: $0) } ?? x)
    }

    /// `places`, or as many more (up to 15) as a value past its threshold
    /// needs to read as past it: a stall ratio of 0.05003 against 0.05
    /// read "stalled 5% (> 5%)", and its JSON `value` equalled its
    /// `threshold`, so a script testing `value > threshold` missed it.
    /// nil where no rounding keeps it past (a mean MOS of
    /// 3.4999999999999996 against 3.5): the value is shown unrounded.
    static func places(_ x: Double, from places: Int, beside threshold: Double?) -> Int? {
        guard let t = threshold, x != t, x.isFinite else { return places }
        for p in places...15 {
            let r = JSON.roundedValue(x, places: p)
            if r != t && (r > t) == (x > t) { return p }
        }
        return nil
    }
}

extension Subscription {
    /// The issues of this subscription (its subscriber's view of one
    /// track), in report order. The meeting's issue list and the report's
    /// per-track marks both come from here.
    public var issues: [Issue] {
        var out: [Issue] = []
        func add(_ code: IssueCode, value: Double? = nil, threshold: Double? = nil, ts: Int64? = nil, count: Int? = nil,
                 _ detail: String) {
            out.append(Issue(code: code, uid: subscriber, publisher: publisher, track: track,
                             value: value, threshold: threshold, ts: ts, count: count,
                             detail: "\(track) from \(publisher): \(detail)"))
        }
        typealias T = IssueThresholds
        if stallRatio > T.stallRatio {
            add(.videoStalls, value: stallRatio, threshold: T.stallRatio, count: stallCount,
                "stalled \(IssueFinder.short(stallRatio * 100, beside: T.stallRatio * 100))% of the time (\(stallCount) stall\(stallCount == 1 ? "" : "s"), > \(IssueFinder.short(T.stallRatio * 100))%)")
        }
        let unseen = stallsUnderGoodTier
        if unseen > 0 {
            // ts: the first of them, as every counted issue has.
            let first = stalls.first { $0.tier == .excellent || $0.tier == .good }?.start
            add(.stallsUnderGoodTier, ts: first, count: unseen,
                unseen == 1 ? "1 stall began under an excellent/good tier"
                    : "\(unseen) stalls began under an excellent/good tier")
        }
        if neverRendered {
            // ts/count as an event (one subscription that never showed a
            // frame, from its subscribe), and how long it waited as value.
            add(.neverRendered, value: Double(endTs - subscribeTs), ts: subscribeTs, count: 1,
                "no frame in \(endTs - subscribeTs) ms")
        }
        if let ttff = timeToFirstFrameMs, ttff > T.firstFrameMs {
            add(.slowFirstFrame, value: Double(ttff), threshold: Double(T.firstFrameMs), ts: firstFrameTs,
                "first frame after \(ttff) ms (> \(T.firstFrameMs) ms)")
        }
        return out
    }
}

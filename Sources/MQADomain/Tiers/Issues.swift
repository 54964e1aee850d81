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

/// The thresholds of `cli.md`; an issue is raised when the value is
/// strictly beyond them.
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
        if let value { fields.append(("value", .double(value))) }
        if let threshold { fields.append(("threshold", .double(threshold))) }
        if let ts { fields.append(("ts", .int(ts))) }
        if let count { fields.append(("count", .int(Int64(count)))) }
        fields.append(("detail", .string(detail)))
        return .object(fields)
    }
}

enum IssueFinder {
    /// Issues in a stable order: the meeting-wide one, then per participant
    /// (uid order), then per track (subscription order).
    static func issues(cdn: Bool, participants: [ParticipantAnalysis], subscriptions: [Subscription]) -> [Issue] {
        var out: [Issue] = []
        if cdn {
            out.append(Issue(code: .noQualityData, uid: nil, detail: "no quality data (CDN engine)"))
        }
        for p in participants {
            typealias T = IssueThresholds
            if let mos = p.mos, mos.mean < T.lowMOSMean {
                out.append(Issue(code: .lowMOS, uid: p.uid, value: mos.mean, threshold: T.lowMOSMean,
                                 detail: "mean MOS \(short(mos.mean)) (< \(short(T.lowMOSMean)))"))
            }
            if let loss = p.lossPct, loss.p95 > T.lossP95Pct {
                out.append(Issue(code: .highPacketLoss, uid: p.uid, value: loss.p95, threshold: T.lossP95Pct,
                                 detail: "p95 loss \(short(loss.p95))% (> \(short(T.lossP95Pct))%)"))
            }
            if let rtt = p.rttMs, rtt.p95 > T.rttP95Ms {
                out.append(Issue(code: .highLatency, uid: p.uid, value: rtt.p95, threshold: T.rttP95Ms,
                                 detail: "p95 RTT \(short(rtt.p95)) ms (> \(short(T.rttP95Ms)) ms)"))
            }
            if let jitter = p.jitterMs, jitter.p95 > T.jitterP95Ms {
                out.append(Issue(code: .highJitter, uid: p.uid, value: jitter.p95, threshold: T.jitterP95Ms,
                                 detail: "p95 jitter \(short(jitter.p95)) ms (> \(short(T.jitterP95Ms)) ms)"))
            }
            if p.reconnects > 0 {
                out.append(Issue(code: .reconnects, uid: p.uid, count: p.reconnects,
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
        for s in subscriptions {
            func add(_ code: IssueCode, value: Double? = nil, threshold: Double? = nil, ts: Int64? = nil, count: Int? = nil,
                     _ detail: String) {
                out.append(Issue(code: code, uid: s.subscriber, publisher: s.publisher, track: s.track,
                                 value: value, threshold: threshold, ts: ts, count: count,
                                 detail: "\(s.track) from \(s.publisher): \(detail)"))
            }
            if s.stallRatio > IssueThresholds.stallRatio {
                add(.videoStalls, value: s.stallRatio, threshold: IssueThresholds.stallRatio, count: s.stallCount,
                    "stalled \(short(s.stallRatio * 100))% of the time (\(s.stallCount) stalls, > \(short(IssueThresholds.stallRatio * 100))%)")
            }
            let unseen = s.stallsUnderGoodTier
            if unseen > 0 {
                add(.stallsUnderGoodTier, count: unseen,
                    unseen == 1 ? "1 stall began under an excellent/good tier"
                        : "\(unseen) stalls began under an excellent/good tier")
            }
            if s.neverRendered {
                add(.neverRendered, value: Double(s.endTs - s.subscribeTs), ts: s.subscribeTs, "no frame in \(s.endTs - s.subscribeTs) ms")
            }
            if let ttff = s.timeToFirstFrameMs, ttff > IssueThresholds.firstFrameMs {
                add(.slowFirstFrame, value: Double(ttff), threshold: Double(IssueThresholds.firstFrameMs), ts: s.firstFrameTs,
                    "first frame after \(ttff) ms (> \(IssueThresholds.firstFrameMs) ms)")
            }
        }
        return out
    }

    /// At most two decimals, no trailing zeros: `7.5`, `3.21`, `450`.
    static func short(_ x: Double) -> String { JSON.number((x * 100).rounded() / 100) }
}

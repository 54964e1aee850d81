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
    /// One human-readable line.
    public var detail: String

    public init(code: IssueCode, uid: String?, publisher: String? = nil, track: String? = nil, detail: String) {
        self.code = code
        self.uid = uid
        self.publisher = publisher
        self.track = track
        self.detail = detail
    }

    /// `{"code", "uid", "detail"}`, plus `"publisher"`/`"track"` for track issues.
    public var json: JSON {
        var fields: [(String, JSON)] = [("code", .string(code.rawValue)), ("uid", .optional(uid))]
        if let track {
            fields.append(("publisher", .optional(publisher)))
            fields.append(("track", .string(track)))
        }
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
            if let mos = p.mos, mos.mean < IssueThresholds.lowMOSMean {
                out.append(Issue(code: .lowMOS, uid: p.uid, detail: "mean MOS \(short(mos.mean)) (< 3.5)"))
            }
            if let loss = p.lossPct, loss.p95 > IssueThresholds.lossP95Pct {
                out.append(Issue(code: .highPacketLoss, uid: p.uid, detail: "p95 loss \(short(loss.p95))% (> 5%)"))
            }
            if let rtt = p.rttMs, rtt.p95 > IssueThresholds.rttP95Ms {
                out.append(Issue(code: .highLatency, uid: p.uid, detail: "p95 RTT \(short(rtt.p95)) ms (> 400 ms)"))
            }
            if let jitter = p.jitterMs, jitter.p95 > IssueThresholds.jitterP95Ms {
                out.append(Issue(code: .highJitter, uid: p.uid, detail: "p95 jitter \(short(jitter.p95)) ms (> 30 ms)"))
            }
            if p.reconnects > 0 {
                out.append(Issue(code: .reconnects, uid: p.uid,
                                 detail: p.reconnects == 1 ? "1 reconnect" : "\(p.reconnects) reconnects"))
            }
            let abnormal = p.disconnects.filter { $0.error != nil }
            if let first = abnormal.first {
                let what = "\(first.reason): \(first.error!) at \(first.ts)"
                let detail = abnormal.count == 1
                    ? "abnormal disconnect (\(what))"
                    : "\(abnormal.count) abnormal disconnects, first (\(what))"
                out.append(Issue(code: .abnormalDisconnect, uid: p.uid, detail: detail))
            }
        }
        for s in subscriptions {
            func add(_ code: IssueCode, _ detail: String) {
                out.append(Issue(code: code, uid: s.subscriber, publisher: s.publisher, track: s.track,
                                 detail: "\(s.track) from \(s.publisher): \(detail)"))
            }
            if s.stallRatio > IssueThresholds.stallRatio {
                add(.videoStalls, "stalled \(short(s.stallRatio * 100))% of the time (\(s.stallCount) stalls, > 5%)")
            }
            let unseen = s.stallsUnderGoodTier
            if unseen > 0 {
                add(.stallsUnderGoodTier,
                    unseen == 1 ? "1 stall began under an excellent/good tier"
                        : "\(unseen) stalls began under an excellent/good tier")
            }
            if s.neverRendered {
                add(.neverRendered, "no frame in \(s.endTs - s.subscribeTs) ms")
            }
            if let ttff = s.timeToFirstFrameMs, ttff > IssueThresholds.firstFrameMs {
                add(.slowFirstFrame, "first frame after \(ttff) ms (> 3000 ms)")
            }
        }
        return out
    }

    /// At most two decimals, no trailing zeros: `7.5`, `3.21`, `450`.
    static func short(_ x: Double) -> String { JSON.number((x * 100).rounded() / 100) }
}

import MQABase
import MQAModel

/// How bad a meeting was, for the fleet ranking (higher is worse), in
/// seconds of degraded experience:
///
///     score = stalled video s (all subscriptions)
///           + warm s in the poor or bad tier (all participants)
///           + 30 s × disconnects with an error
///
/// A second of frozen video and a second of poor/bad audio quality each cost
/// a participant about the same: a second of the meeting they could not
/// follow. An abnormal disconnect costs more than its measured gap: the
/// rejoin, the re-subscribe and finding one's place again take tens of
/// seconds, counted as a flat 30 s. Summing over participants makes a bad
/// meeting for many people worse than the same trouble for one.
///
/// This is the only definition in Swift: the fleet report, `mqa meetings`
/// and the demo read it. `Queries/worst-meetings.sql` is its only SQL form
/// (a test checks the two agree on every meeting of a simulated fleet), and
/// `Spark/mqa_spark.py` repeats it to rank merged shards (its tests compare
/// with `mqa`'s ranking).
public struct FleetScore: Sendable, Equatable {
    /// Stalled video time summed over every subscription.
    public var stalledMs: Int64
    /// Warm time in the `poor` or `bad` tier, summed over participants
    /// (0 in a CDN meeting: no quality feed).
    public var lowTierMs: Int64
    /// Disconnects that carried an `error`.
    public var abnormalDisconnects: Int

    public static let secondsPerAbnormalDisconnect = 30.0

    /// The formula in words, for the reports and `--help`.
    public static let rule = "stalled video seconds + warm seconds in the poor/bad tier + "
        + "\(JSON.number(secondsPerAbnormalDisconnect)) s per disconnect with an error (higher is worse)"

    public init(stalledMs: Int64, lowTierMs: Int64, abnormalDisconnects: Int) {
        self.stalledMs = stalledMs
        self.lowTierMs = lowTierMs
        self.abnormalDisconnects = abnormalDisconnects
    }

    /// The figures of one analysed meeting.
    public init(_ a: MeetingAnalysis) {
        stalledMs = a.subscriptions.reduce(0) { $0 + $1.stalledMs }
        lowTierMs = a.isCDN ? 0 : a.participants.reduce(0) { $0 + $1.tierMs[.poor] + $1.tierMs[.bad] }
        abnormalDisconnects = a.participants.reduce(0) { $0 + $1.disconnects.count { $0.error != nil } }
    }

    /// The normalized view, beside the score (which alone ranks): seconds
    /// of degraded experience per participant-hour, the score over
    /// participants × the meeting's length in hours, so that a small short
    /// meeting that went badly for everyone stands out next to a long big
    /// one with more trouble in total. Nil for an empty or instant meeting.
    public static func perParticipantHour(_ seconds: Double, participants: Int, durationMs: Int64?) -> Double? {
        guard let durationMs, durationMs > 0, participants > 0 else { return nil }
        return seconds / (Double(participants) * Double(durationMs) / 3_600_000)
    }

    /// The normalized view in words.
    public static let perParticipantHourRule = "score per participant-hour = score ÷ (participants × duration in hours)"

    /// The score: higher is worse. Rankings break ties by meeting id.
    public var seconds: Double {
        Double(stalledMs) / 1000 + Double(lowTierMs) / 1000
            + FleetScore.secondsPerAbnormalDisconnect * Double(abnormalDisconnects)
    }
}

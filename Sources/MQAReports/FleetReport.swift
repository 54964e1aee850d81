import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// One meeting's line in the fleet ranking: what the score is made of.
public struct FleetEntry: Sendable, Equatable {
    /// What meeting, when, on which engine.
    public var header: MeetingHeader
    /// Stalled video time summed over every subscription (every viewer of
    /// every track), so it can exceed the meeting's duration.
    public var stalledMs: Int64
    /// Warm time in the `poor` or `bad` tier, summed over participants;
    /// nil in a CDN meeting, which has no quality feed: "no quality data",
    /// never a perfect 0.
    public var lowTierMs: Int64?
    /// Disconnects that carried an `error` (abnormal ones).
    public var abnormalDisconnects: Int
    /// Occurrences of each issue code in the meeting.
    public var issueCounts: [IssueCode: Int]
    /// The participants' platforms and SDK versions, where their joins name them.
    public var clients: FleetClientMix

    /// Summarises one meeting report.
    public init(_ report: MeetingReport) {
        self.init(header: report.header, analysis: report.analysis, clients: FleetClientMix(report.context))
    }

    /// Summarises one meeting from its header and analysis: all a ranking
    /// needs (no incidents, context or chart series).
    public init(header: MeetingHeader, analysis a: MeetingAnalysis, clients: FleetClientMix = FleetClientMix()) {
        let score = FleetScore(a)
        var counts: [IssueCode: Int] = [:]
        for i in a.issues { counts[i.code, default: 0] += 1 }
        self.init(header: header, stalledMs: score.stalledMs, lowTierMs: score.lowTierMs,
                  abnormalDisconnects: score.abnormalDisconnects, issueCounts: counts, clients: clients)
    }

    /// An entry from its figures (an analysis, or the stored summary that
    /// `mqa meetings` reads); `lowTierMs` becomes nil on the CDN engine,
    /// whatever the figures say: no quality feed, no figure, never a
    /// perfect 0.
    public init(header: MeetingHeader, stalledMs: Int64, lowTierMs: Int64?, abnormalDisconnects: Int,
                issueCounts: [IssueCode: Int] = [:], clients: FleetClientMix = FleetClientMix()) {
        self.header = header
        self.clients = clients
        self.stalledMs = stalledMs
        self.lowTierMs = EventCatalog.hasQualityFeed(engine: header.engine) ? lowTierMs : nil
        self.abnormalDisconnects = abnormalDisconnects
        self.issueCounts = issueCounts
    }

    /// The ranking score (`FleetScore`): higher is worse.
    public var score: Double {
        FleetScore(stalledMs: stalledMs, lowTierMs: lowTierMs ?? 0, abnormalDisconnects: abnormalDisconnects).seconds
    }

    /// The normalized view (`FleetScore.perParticipantHour`); it does not rank.
    public var scorePerParticipantHour: Double? {
        FleetScore.perParticipantHour(score, participants: header.participants, durationMs: header.durationMs)
    }
}

/// All meetings ranked worst first by `FleetScore` (`mqa report fleet
/// [--top N]`), and the index of a batch. Ties rank by meeting id, so the
/// order is stable.
public struct FleetReport: Sendable, RenderedReport {
    public static let scoreRule = FleetScore.rule
    public static let secondsPerAbnormalDisconnect = FleetScore.secondsPerAbnormalDisconnect

    /// Ranked worst first, cut to `top`.
    public var ranked: [FleetEntry]
    /// Meetings ranked before the cut.
    public var meetingCount: Int
    /// Over all meetings (not only the top): occurrences of each code, and
    /// the number of meetings with at least one.
    public var issueTotals: [IssueCode: (issues: Int, meetings: Int)]
    /// Batch index: meeting id → file name relative to the index. When set,
    /// md and html link each meeting, json and csv add a `file` field.
    public var files: [String: String]?
    /// How start times are written in md and html (`--tz`: a local column).
    public var display = TimeDisplay()
    /// The tier config the entries were analysed under (`--config`): named
    /// by every format when it is not the defaults.
    public var config = TierConfig()
    /// A site's participant page (`participants.html`), linked from the
    /// html page: each participant's meetings.
    public var participantsPage: String?
    /// Site index only: the fleet-wide pages beside it (cohorts, trends),
    /// linked under the heading of the html.
    public var sitePages: [(title: String, file: String)] = []

    public init(entries: [FleetEntry], top: Int? = nil, files: [String: String]? = nil) {
        var ranking = FleetRanking(top: top)
        for e in entries { ranking.add(e) }
        self.init(ranking, files: files)
    }

    /// The report of the meetings `ranking` was given.
    public init(_ ranking: FleetRanking, files: [String: String]? = nil) {
        ranked = ranking.ranked
        meetingCount = ranking.meetingCount
        issueTotals = ranking.issueTotals
        self.files = files
    }

}

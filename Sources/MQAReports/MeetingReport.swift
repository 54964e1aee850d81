import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// Everything `mqa report meeting` shows about one meeting: the header, the
/// tier engine's analysis and the warm quality series for the charts.
///
/// Build one with `MeetingReport(log:config:)`, then render it with
/// `json`, `markdown`, `csv` or `html`, or `render(_:)` by format.
public struct MeetingReport: Sendable, RenderedReport {
    public var header: MeetingHeader
    public var analysis: MeetingAnalysis { didSet { placeIssues() } }
    /// The meeting's clients as logged, for the charts. Their series are
    /// made when a chart is drawn and dropped after: held for every
    /// participant they were 56 bytes a report on top of the log, a third
    /// of `report meeting` on a 500-viewer hour, for md and json too.
    let clients: ChartClients
    /// Whether the HTML page reads the store as it is drawn (a report read
    /// a client at a time: its charts read each client again), so that it
    /// must be written within the snapshot it was made in.
    public var readsWhileDrawn: Bool { clients.read != nil }
    /// Stored chunks that could not be read and are left out of this report
    /// (`MeetingLog.damage`); every format says so when there are any.
    public var damage: [String]
    /// Speaking time and the 1.1 context events; shown, never counted.
    public var context: MeetingContext
    /// Co-occurring trouble, merged into time windows with a likely cause
    /// (`IncidentFinder`), in start order.
    public var incidents: [Incident] { didSet { placeIssues() } }
    /// Participants, most affected first (the verdict's ranking).
    public var impacts: [ParticipantImpact]
    /// How instants are written in md and html (`--tz`); JSON keeps ms.
    /// Its clocks are dated when the meeting spans more than one day there.
    public var display = TimeDisplay() {
        // Changed here, in the observer itself: through a method of the
        // report the observer would run again, without end.
        didSet { if let start = header.start { display.date(forSpan: start, header.end ?? start) } }
    }
    /// `--uid U [--at T]`: the report opens with that participant's
    /// incidents (nearest to T first), and the JSON has a `focus` object.
    public var focus: ReportFocus?
    /// What imported dumps' standard stats add per connection, by uid
    /// (`EventStore.connectionContexts`): context, never counted. Set by
    /// the caller that holds the store; empty for event logs.
    public var connections: [String: [ConnectionContext]] = [:]
    /// Reports too seldom for the config's `gapMs` (most intervals are
    /// gaps); nil otherwise.
    public var sampling: SamplingNotice?

    /// The JSON's `schema`.
    public static let schema = "mqa.meeting/1"

    /// The sentence a CDN meeting shows instead of quality numbers.
    public static let noQualityData = "no quality data (CDN engine)"

    public init(log: MeetingLog, config: TierConfig) {
        let analysis = MeetingAnalysis.analyze(log, config: config)
        self.init(header: MeetingHeader(log), damage: log.damage.map(\.description), analysis: analysis,
                  context: MeetingContext.build(log), incidents: IncidentFinder.find(log, analysis),
                  sampling: analysis.isCDN ? nil : SamplingNotice(
                      series: log.clients.lazy.map { QualitySeries($0, config: config, keepingPoints: false) }, gapMs: config.gapMs),
                  clients: ChartClients(logged: log.clients, read: nil))
    }

    /// The parts made; the rest follows from them.
    init(header: MeetingHeader, damage: [String], analysis: MeetingAnalysis, context: MeetingContext, incidents: [Incident],
         sampling: SamplingNotice?, clients: ChartClients) {
        self.header = header
        self.damage = damage
        self.analysis = analysis
        self.context = context
        self.incidents = incidents
        impacts = ParticipantImpact.rank(analysis)
        self.sampling = sampling
        self.clients = clients
        if let start = header.start { display.date(forSpan: start, header.end ?? start) }
        placeIssues()
    }

    /// Incidents, most impact first (ties: longer, earlier, then uid), with
    /// their 1-based number in start order (the anchor `i-N`).
    ///
    /// Kept with `issuePlacement`, both made again whenever `analysis` or
    /// `incidents` change: the HTML page asked for them a dozen times, and
    /// placing every issue against every incident each time was 15 % of
    /// `report meeting --all --format html`.
    private(set) var rankedIncidents = RankedIncidents(incidents: [], order: [])
    /// Where each issue of the meeting is shown (`IssuePlacement`).
    private(set) var issuePlacement = IssuePlacement(issues: [], ranked: [(number: Int, incident: Incident)]())

    private mutating func placeIssues() {
        let incidents = incidents
        var order = incidents.indices.map { Int32($0) }
        order.sort { x, y in
            let a = incidents[Int(x)], b = incidents[Int(y)]
            return (b.impactMs, b.durationMs, a.startTs, x) < (a.impactMs, a.durationMs, b.startTs, y)
        }
        rankedIncidents = RankedIncidents(incidents: incidents, order: order)
        issuePlacement = IssuePlacement(issues: analysis.issues, ranked: rankedIncidents)
    }

    /// Whether the meeting has a quality feed (it does not on the CDN engine).
    public var hasQualityData: Bool { !analysis.isCDN }

    /// Meeting time axis for charts: the header's span, at least 1 ms long.
    var timeRange: (start: Int64, end: Int64) {
        let s = header.start ?? 0
        return (s, max(header.end ?? s, s + 1))
    }


    /// `mqa report meeting --format json`: the shape of `Docs/cli.md`, plus
    /// `participantCount`, `qualityData` (false on a CDN meeting) and
    /// `notice` (the no-quality-data sentence, else null).
    public var json: JSON {
        var fields: [(String, JSON)] = [
            ("schema", .string(MeetingReport.schema)),
            ("meeting", .string(header.meeting)),
            ("title", .optional(header.title)),
            ("engine", .optional(header.engine)),
            ("start", .optional(header.start)),
            ("end", .optional(header.end)),
            ("durationMs", .optional(header.durationMs)),
            ("participantCount", .int(Int64(header.participants))),
            ("qualityData", .bool(hasQualityData)),
            ("notice", hasQualityData ? .null : .string(MeetingReport.noQualityData)),
            ("participants", participantsWithContextJSON),
            ("tracks", analysis.tracksJSON),
            ("issues", issuesJSON),
            ("incidents", .array(incidents.map(\.json))),
            ("impact", .array(impacts.map(\.json))),
            ("subMeetingMoves", context.subMeetingMovesJSON),
            ("shares", context.sharesJSON),
        ]
        if let focus { fields.insert(("focus", focusJSON(focus)), at: 2) }
        // Only on damaged data, so that reports on sound data keep their shape.
        // Only when reports come too seldom, likewise.
        if let sampling { fields.append(("samplingNotice", sampling.json)) }
        // Only under a config other than the defaults: the figures are its.
        fields += analysis.config.jsonMember("config")
        if !damage.isEmpty {
            fields.append(("damage", .object([("notice", .string(damageNotice)), ("chunks", .array(damage.map { .string($0) }))])))
        }
        return .object(fields)
    }

    /// The engine's participant objects, each with its `client` object
    /// (format 1.2: platform, versions, device, network at join; nulls
    /// when not logged), its `networks` (the path of network types) and
    /// its `context` object.
    var participantsWithContextJSON: JSON {
        .array(zip(analysis.participants, context.participants).map { p, c in
            guard case .object(var fields) = p.json else { return p.json }
            fields.append(("client", c.client.json))
            fields.append(("networks", .array(c.networkPath.map { .string($0) })))
            // Only for a participant who rejoined as another client, so
            // other reports keep their shape.
            if !c.clientHistory.isEmpty { fields.append(("clientHistory", .array(c.clientHistory.map(\.json)))) }
            // Only for imported dumps that told something, so event logs'
            // reports keep their shape. Not `connections`: that key is the
            // spec's count, which a second one would hide.
            if let list = connections[p.uid], !list.isEmpty {
                fields.append(("connectionContexts", .array(list.map { .object($0.jsonFields) })))
            }
            fields.append(("context", c.json))
            return .object(fields)
        })
    }

    /// The sentence a report on damaged data opens with.
    var damageNotice: String {
        "damaged data: \(damage.count) stored chunk\(damage.count == 1 ? "" : "s") could not be read and "
            + "\(damage.count == 1 ? "is" : "are") left out of this report; the rest is shown. Run `mqa check` for details."
    }

    /// The issues that concern each participant itself (not one of its
    /// tracks), by uid, in the meeting's issue order. One pass: renderers
    /// look up every participant.
    var participantIssues: [String: [Issue]] {
        Dictionary(grouping: analysis.issues.filter { $0.uid != nil && $0.track == nil }, by: { $0.uid! })
    }

    /// The track issue codes of one subscription, in the meeting's issue
    /// order. Asked of the subscription itself, because an `Issue` names
    /// (subscriber, publisher, track) and a re-subscribed track has several
    /// subscriptions under that name.
    func trackIssueCodes(_ s: Subscription) -> [IssueCode] { s.issues.map(\.code) }
}

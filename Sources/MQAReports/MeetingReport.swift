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
    public var focus: ReportFocus? { didSet { chooseCharted() } }
    /// How many participants the HTML page charts at most, most affected
    /// first (the focused one is charted too); `nil` charts everyone.
    public var chartLimit: Int? = MeetingReport.defaultChartLimit { didSet { chooseCharted() } }
    /// How many incidents the HTML page's table lists at most, most impact
    /// first (`listedIncidents`); `nil` lists them all. Markdown and JSON
    /// list every incident.
    public var incidentListLimit: Int? = MeetingReport.defaultIncidentListLimit
    /// The participants the HTML page charts (`chartLimit`); the others
    /// are linked to their row of the participants table instead.
    private(set) var charted: Set<String> = []
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
        chooseCharted()
    }

    /// Participants charted by default. A chart is 40–90 KB of SVG: a
    /// 2,000-viewer webinar charted whole made a 171 MB page that took a
    /// browser 25 s to open, and nobody reads the 2,000th chart.
    public static let defaultChartLimit = 50

    /// The most affected participants with a quality timeline, up to
    /// `chartLimit`, and the focused one.
    private mutating func chooseCharted() {
        guard hasQualityData else { return charted = [] }
        let withChart = impacts.lazy.map(\.uid).filter { [analysis] in analysis.timelines[$0] != nil }
        var chosen = Set(chartLimit.map { Array(withChart.prefix(max($0, 0))) } ?? Array(withChart))
        if let uid = focus?.uid, analysis.timelines[uid] != nil { chosen.insert(uid) }
        charted = chosen
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
        let subscriptions = analysis.subscriptions
        subscriptionsBy = PositionGroups(count: subscriptions.count) { k, add in add(subscriptions[k].subscriber) }
        participantUIDs = Set(analysis.participants.map(\.uid))
    }

    /// Each subscriber's subscriptions (positions in `analysis.subscriptions`,
    /// in order) and every participant's uid, made with `issuePlacement`:
    /// an incident's evidence looked through every subscription, which
    /// for a 20,000-viewer webinar's 60,000 incidents was quadratic.
    private(set) var subscriptionsBy = PositionGroups<String>()
    private(set) var participantUIDs: Set<String> = []

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
    public var json: JSON { .object(jsonMembers.map { ($0.key, $0.member.whole) }) }

    /// A member of the JSON, made when it is written: `write` streams the
    /// long arrays an element at a time (100,000 incidents of a 2,000-viewer
    /// hour were a 30 MB tree beside their 32 MB of text).
    enum JSONMember {
        case value(JSON)
        case made(() -> JSON)
        case elements(Int, (Int) -> JSON)

        var whole: JSON {
            switch self {
            case .value(let json): json
            case .made(let make): make()
            case .elements(let count, let element): .array((0..<count).map(element))
            }
        }
    }

    /// The JSON's members, in order (`json`, and `write` for JSON).
    var jsonMembers: [(key: String, member: JSONMember)] {
        var fields: [(key: String, member: JSONMember)] = [
            ("schema", .value(.string(MeetingReport.schema))),
            ("meeting", .value(.string(header.meeting))),
            ("title", .value(.optional(header.title))),
            ("engine", .value(.optional(header.engine))),
            ("start", .value(.optional(header.start))),
            ("end", .value(.optional(header.end))),
            ("durationMs", .value(.optional(header.durationMs))),
            ("participantCount", .value(.int(Int64(header.participants)))),
            ("qualityData", .value(.bool(hasQualityData))),
            ("notice", .value(hasQualityData ? .null : .string(MeetingReport.noQualityData))),
            ("participants", .elements(min(analysis.participants.count, context.participants.count)) { participantWithContextJSON($0) }),
            ("tracks", .elements(analysis.subscriptions.count) { analysis.subscriptions[$0].json }),
            ("issues", .elements(analysis.issues.count) { issueJSON($0) }),
            ("incidents", .elements(incidents.count) { incidents[$0].json }),
            ("impact", .elements(impacts.count) { impacts[$0].json }),
            ("subMeetingMoves", .made { context.subMeetingMovesJSON }),
            ("shares", .made { context.sharesJSON }),
        ]
        if let focus { fields.insert(("focus", .made { focusJSON(focus) }), at: 2) }
        // Only on damaged data, so that reports on sound data keep their shape.
        // Only when reports come too seldom, likewise.
        if let sampling { fields.append(("samplingNotice", .value(sampling.json))) }
        // Only under a config other than the defaults: the figures are its.
        fields += analysis.config.jsonMember("config").map { ($0.0, .value($0.1)) }
        if !damage.isEmpty {
            fields.append(("damage", .value(.object([("notice", .string(damageNotice)), ("chunks", .array(damage.map { .string($0) }))]))))
        }
        return fields
    }

    /// `json` to `out`, a member (and a long array's element) at a time.
    func writeJSON(to out: OutputSink) {
        var w = JSONStreamWriter(out, pretty: true)
        w.beginObject()
        for (key, member) in jsonMembers {
            switch member {
            case .value(let json): w.value(json, key: key)
            case .made(let make): w.value(make(), key: key)
            case .elements(let count, let element):
                w.beginArray(key: key)
                for i in 0..<count { w.value(element(i)) }
                w.end()
            }
        }
        w.end()
        w.finish()
        out.write("\n")
    }

    /// The engine's participant object at `i`, with its `client` object
    /// (format 1.2: platform, versions, device, network at join; nulls
    /// when not logged), its `networks` (the path of network types) and
    /// its `context` object.
    func participantWithContextJSON(_ i: Int) -> JSON {
        let p = analysis.participants[i], c = context.participants[i]
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

import MQAModel
import MQAAnalysis
import MQAStore

extension MeetingReport {
    /// The report of a stored meeting, its clients' reports read one
    /// client at a time and never held together: the analysis reads each in
    /// its turn (`EventStore.analyzeMeetingForRereading`), the incidents,
    /// the clients' fields, talk time and the sampling notice read each
    /// again (whatever a client's reports decide), and an
    /// HTML page's charts once more as they are drawn. Read whole, a
    /// 2,000-viewer hour held 173 MB of reports for the whole report.
    ///
    /// Equal to `init(log:config:)` of the meeting's log read whole. Throws
    /// `StoreError.noMeeting` for an unknown id and `StoreError.damaged` on
    /// a chunk that cannot be read (read the log leniently then, which
    /// leaves it out and says so). Write it within `EventStore.inSnapshot`
    /// so that its passes, and an HTML page's, read the same commit.
    public init(stored meeting: String, in store: EventStore, config: TierConfig) throws {
        guard let (log, analysis, reports) = try store.analyzeMeetingForRereading(meeting, config: config) else {
            throw StoreError.noMeeting(meeting)
        }
        var incidents = IncidentFinder.Collector(log, analysis)
        var lastReports: [Int64?] = []
        lastReports.reserveCapacity(log.clients.count)
        // Talk time ends with a connection, which a client's reports can end.
        var talk: [String: Int64] = [:]
        // Only the participants the notice names: the others add nothing to it.
        var seldom: [QualitySeries] = []
        for i in log.clients.indices {
            var client = log.clients[i]
            client.reports = try reports.columns(i)
            lastReports.append(client.reports.ts.last)
            MeetingContext.hearing(MeetingContext.talkTime(heardBy: client), into: &talk)
            incidents.add(client)
            if !analysis.isCDN {
                let s = QualitySeries(client, config: config, keepingPoints: false)
                if SamplingNotice.samplesSeldom(s, gapMs: config.gapMs) { seldom.append(s) }
            }
        }
        self.init(header: MeetingHeader(log, span: analysis.span), damage: [], analysis: analysis,
                  context: MeetingContext.build(log, lastReports: lastReports, talk: talk), incidents: incidents.incidents(),
                  sampling: analysis.isCDN ? nil : SamplingNotice(series: seldom, gapMs: config.gapMs),
                  clients: ChartClients(logged: log.clients, read: reports.columns))
    }
}

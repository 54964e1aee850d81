import MQAModel
import MQAAnalysis
import MQAStore

extension MeetingReport {
    /// The report of a stored meeting, its clients' reports read one
    /// client at a time and never held together: the analysis reads each in
    /// its turn (`EventStore.analyzeMeetingForRereading`), then the
    /// incidents, talk time and the sampling notice walk each again
    /// (`ConnectedReports`), and an HTML page's charts read each once more as
    /// they are drawn. Read whole, a 2,000-viewer hour held 173 MB of
    /// reports for the whole report. A client of more than `limit` reports
    /// is never held at all, but decoded chunk by chunk on each pass: one
    /// of 4M reports held 192 MB for the incidents.
    ///
    /// Equal to `init(log:config:)` of the meeting's log read whole. Throws
    /// `StoreError.noMeeting` for an unknown id and `StoreError.damaged` on
    /// a chunk that cannot be read (read the log leniently then, which
    /// leaves it out and says so). Write it within `EventStore.inSnapshot`
    /// so that its passes, and an HTML page's, read the same commit.
    public init(stored meeting: String, in store: EventStore, config: TierConfig,
                holdingUpTo limit: Int = EventStore.heldReportLimit) throws {
        guard let (log, analysis, reports) = try store.analyzeMeetingForRereading(meeting, config: config, holdingUpTo: limit)
        else {
            throw StoreError.noMeeting(meeting)
        }
        var incidents = IncidentFinder.Collector(log, analysis)
        var lastReports: [Int64?] = []
        lastReports.reserveCapacity(log.clients.count)
        // Talk time ends with a connection, which a client's reports can end.
        var talk: [String: Int64] = [:]
        // Only the participants the notice names: the others add nothing to it.
        var seldom: [QualitySeries] = []
        for (i, client) in log.clients.enumerated() {
            let warm = try reports.walk(i, of: log, holdingUpTo: limit)
            lastReports.append(warm.lastReportTs)
            MeetingContext.hearing(MeetingContext.talkTime(heardBy: client, spans: warm.spans), into: &talk)
            try incidents.add(client, reports: warm)
            if !analysis.isCDN {
                let s = try QualitySeries(intervalsOf: client.uid, warm, config: config)
                if SamplingNotice.samplesSeldom(s, gapMs: config.gapMs) { seldom.append(s) }
            }
        }
        // Made first: the collector (and the figures it kept) is gone
        // before the context is built.
        let found = incidents.incidents()
        self.init(header: MeetingHeader(log, span: analysis.span), damage: [], analysis: analysis,
                  context: MeetingContext.build(log, lastReports: lastReports, talk: talk), incidents: found,
                  sampling: analysis.isCDN ? nil : SamplingNotice(series: seldom, gapMs: config.gapMs),
                  clients: ChartClients(logged: log.clients, read: { try reports.walk($0, of: log, holdingUpTo: limit) }))
    }
}

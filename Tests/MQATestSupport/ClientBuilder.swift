import MQABase
import MQAModel

/// Builds one client's log in the order its lines would be written, and
/// hands it over the way the store hands it to the engine: events and
/// reports each sorted by `ts`, stably (equal ts keep the order written),
/// each event placed among its millisecond's reports as written
/// (`TimedEvent.reportsBefore`), context events on their own. Shared by the test targets so that a
/// fixture means the same thing in each.
public struct ClientBuilder {
    /// What `report` and `reports` fill in for the values a test leaves out.
    public struct Defaults: Sendable {
        public var rtt: Double, loss: Double, jitter: Double, bitrate: Double
        /// Milliseconds between the reports of `reports(from:to:)`.
        public var step: Int64

        /// A fine network reporting every 2 s: what the report fixtures
        /// (and so the goldens) were written with.
        public init(rtt: Double = 60, loss: Double = 0.4, jitter: Double = 6, bitrate: Double = 1800,
                    step: Int64 = 2000) {
            self.rtt = rtt
            self.loss = loss
            self.jitter = jitter
            self.bitrate = bitrate
            self.step = step
        }
    }

    public var uid: String
    public var defaults: Defaults
    public private(set) var events: [TimedEvent] = []
    public private(set) var reports: [(ts: Int64, report: QualityReport)] = []
    /// Per event, the reports written before it.
    private var reportsWritten: [Int] = []

    public init(_ uid: String, defaults: Defaults = Defaults()) {
        self.uid = uid
        self.defaults = defaults
    }

    public mutating func event(_ ts: Int64, _ payload: EventPayload) {
        events.append(TimedEvent(ts: ts, payload: payload))
        reportsWritten.append(reports.count)
    }
    public mutating func join(_ ts: Int64, engine: String = "sfu", title: String? = nil) {
        event(ts, .meetingJoin(engine: engine, title: title))
    }
    public mutating func leave(_ ts: Int64) { event(ts, .meetingLeave) }
    public mutating func disconnect(_ ts: Int64, reason: String = "network", error: String? = nil) {
        event(ts, .disconnect(reason: reason, error: error))
    }
    public mutating func reconnect(_ ts: Int64) { event(ts, .reconnect) }
    /// A 1.1 context event of `kind` with string fields.
    public mutating func context(_ ts: Int64, _ kind: EventKind, _ fields: [String: String] = [:]) {
        event(ts, EventPayload(kind, fields.mapValues { PayloadValue.string($0) }))
    }
    public mutating func speakers(_ ts: Int64, _ uids: [String]) { event(ts, .activeSpeakersChange(speakers: uids)) }
    public mutating func sdkTier(_ ts: Int64, _ tier: String) { event(ts, .connectionQualityChange(tier: tier)) }
    public mutating func subscribe(_ ts: Int64, _ publisher: String, _ track: String, kind: String = "camera") {
        event(ts, .streamSubscribe(publisher: publisher, track: track, kind: kind))
    }
    public mutating func status(_ ts: Int64, _ publisher: String, _ track: String, timedOut: Bool) {
        event(ts, .receiveStreamStatus(publisher: publisher, track: track, timedOut: timedOut))
    }
    /// A stall of `track` over `[from, to)`: a timed-out status, then a good one.
    public mutating func stall(_ publisher: String, _ track: String, from: Int64, to: Int64) {
        status(from, publisher, track, timedOut: true)
        status(to, publisher, track, timedOut: false)
    }
    /// One quality report; `nil` values are the builder's `defaults`.
    public mutating func report(_ ts: Int64, mos: Double?, rtt: Double? = nil, loss: Double? = nil,
                                jitter: Double? = nil, bitrate: Double? = nil) {
        let report = QualityReport(loss: loss ?? defaults.loss, rtt: rtt ?? defaults.rtt,
                                   jitter: jitter ?? defaults.jitter, bitrate: bitrate ?? defaults.bitrate, mos: mos)
        reports.append((ts, report))
    }
    /// One report every `step` ms (the defaults' when `nil`) over `[from, to)`.
    public mutating func reports(from: Int64, to: Int64, step: Int64? = nil, mos: Double, rtt: Double? = nil,
                                 loss: Double? = nil, jitter: Double? = nil, bitrate: Double? = nil) {
        let step = step ?? defaults.step
        var t = from
        while t < to {
            report(t, mos: mos, rtt: rtt, loss: loss, jitter: jitter, bitrate: bitrate)
            t += step
        }
    }

    public func build() -> ClientLog {
        var columns = ReportColumns()
        for r in reports.enumerated().sorted(by: { ($0.element.ts, $0.offset) < ($1.element.ts, $1.offset) }) {
            columns.append(ts: r.element.ts, r.element.report)
        }
        // The store's place: the reports of the event's millisecond written
        // before it.
        var written: [Int64: [Int]] = [:]
        for (i, r) in reports.enumerated() { written[r.ts, default: []].append(i) }
        let placed = events.indices.map { i -> TimedEvent in
            var e = events[i]
            e.reportsBefore = UInt32((written[e.ts] ?? []).filter { $0 < reportsWritten[i] }.count)
            return e
        }
        let sorted = placed.enumerated().sorted { ($0.element.ts, $0.offset) < ($1.element.ts, $1.offset) }.map(\.element)
        // As the store hands them over: context events on their own.
        return ClientLog(uid: uid, events: sorted.filter { !$0.payload.kind.isContext }, reports: columns,
                         context: sorted.filter { $0.payload.kind.isContext })
    }
}

/// A meeting of `clients`, in uid order as the store loads them.
public func meeting(_ clients: [ClientBuilder], id: String = "m-1") -> MeetingLog {
    MeetingLog(meeting: id, clients: clients.map { $0.build() }.sorted { $0.uid < $1.uid })
}

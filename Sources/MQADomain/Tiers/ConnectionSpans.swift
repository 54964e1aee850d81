/// Where one connection lies in its client's log: its time span and the
/// contiguous ranges of the client's events and quality reports it owns.
public struct ConnectionSpan: Sendable, Equatable {
    /// 0-based position among the client's connections.
    public var index: Int
    /// The `meeting_join`/`reconnect` time, or the client's first event when
    /// the log began mid-connection.
    public var start: Int64
    /// The closing `disconnect`/`meeting_leave`, the next join/reconnect, or
    /// the client's last event (reports included).
    public var end: Int64
    /// Indices into `ClientLog.reports` of the reports inside the connection.
    public var reports: Range<Int>
    /// Indices into `ClientLog.events` of the events inside the connection,
    /// its opening join/reconnect and closing disconnect/leave included.
    public var events: Range<Int>

    public init(index: Int, start: Int64, end: Int64, reports: Range<Int>, events: Range<Int>) {
        self.index = index
        self.start = start
        self.end = end
        self.reports = reports
        self.events = events
    }
}

extension ClientLog {
    /// Splits the client's log into connections (spec "Connections").
    ///
    /// Cut along `mergedTimeline()` (the `ClientLog` rule at equal `ts`:
    /// join/reconnect before that millisecond's reports, every other event
    /// after them). Reports met while no connection is open
    /// belong to none and fall outside every span's `reports` range.
    ///
    /// When the log begins without a join/reconnect, the first connection
    /// starts at the first event whatever it is; if that very event is a
    /// `disconnect`/`meeting_leave`, that gives a zero-length connection,
    /// which is kept (it is what the spec's words give, and it records that
    /// the client was connected when its log began).
    public func connectionSpans() -> [ConnectionSpan] {
        guard let last = span?.last else { return [] }
        var spans: [ConnectionSpan] = []
        // Items of each kind met so far, along the merged timeline.
        var events = 0, reports = 0
        var isOpen = false
        var start: Int64 = 0, eventLo = 0, reportLo = 0

        func open(at ts: Int64) {
            isOpen = true; start = ts; eventLo = events; reportLo = reports
        }
        func close(at ts: Int64, eventHi: Int) {
            spans.append(ConnectionSpan(
                index: spans.count, start: start, end: ts,
                reports: reportLo..<reports, events: eventLo..<eventHi))
            isOpen = false
        }

        for item in mergedTimeline() {
            let first = events == 0 && reports == 0
            switch item {
            case .report(let j):
                if first { open(at: self.reports.ts[j]) }  // log began late
                reports += 1
            case .event(let i):
                let e = self.events[i]
                if e.payload.kind.opensConnection {
                    if isOpen { close(at: e.ts, eventHi: i) }
                    open(at: e.ts)
                } else {
                    if first { open(at: e.ts) }  // log began late
                    if e.payload.kind == .disconnect || e.payload.kind == .meetingLeave, isOpen {
                        close(at: e.ts, eventHi: i + 1)
                    }
                }
                events += 1
            }
        }
        if isOpen { close(at: last, eventHi: self.events.count) }
        return spans
    }
}

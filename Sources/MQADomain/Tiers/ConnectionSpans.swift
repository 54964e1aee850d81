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
    /// Events and reports are merged in time order with the `ClientLog`
    /// rule at equal `ts`: join/reconnect before that millisecond's reports,
    /// every other event after them. Reports met while no connection is open
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
        let ne = events.count, nr = reports.count
        var i = 0, j = 0
        var isOpen = false
        var start: Int64 = 0, eventLo = 0, reportLo = 0

        func opens(_ kind: EventKind) -> Bool { kind == .meetingJoin || kind == .reconnect }
        func open(at ts: Int64) {
            isOpen = true; start = ts; eventLo = i; reportLo = j
        }
        func close(at ts: Int64, eventHi: Int) {
            spans.append(ConnectionSpan(
                index: spans.count, start: start, end: ts,
                reports: reportLo..<j, events: eventLo..<eventHi))
            isOpen = false
        }

        while i < ne || j < nr {
            let takeEvent: Bool
            if i < ne, j < nr {
                let et = events[i].ts, rt = reports.ts[j]
                takeEvent = et < rt || (et == rt && opens(events[i].payload.kind))
            } else {
                takeEvent = i < ne
            }
            if i == 0, j == 0, !(takeEvent && opens(events[i].payload.kind)) {
                open(at: takeEvent ? events[i].ts : reports.ts[j])  // log began late
            }
            guard takeEvent else { j += 1; continue }
            let e = events[i]
            switch e.payload.kind {
            case .meetingJoin, .reconnect:
                if isOpen { close(at: e.ts, eventHi: i) }
                open(at: e.ts)
            case .disconnect, .meetingLeave:
                if isOpen { close(at: e.ts, eventHi: i + 1) }
            default:
                break
            }
            i += 1
        }
        if isOpen { close(at: last, eventHi: ne) }
        return spans
    }
}

import MQABase
import MQAModel

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
    /// Splits the client's log into connections (spec "Connections"); see
    /// `ConnectionSpanner` for the rules.
    public func connectionSpans() -> [ConnectionSpan] {
        var spanner = ConnectionSpanner(events: events)
        for ts in reports.ts { spanner.report(ts: ts) }
        return spanner.finish(last: span?.last)
    }
}

/// Finds a client's connections while its reports go past in time order,
/// so that a stored series can be split chunk by chunk.
///
/// Cut along the client's time order (its rule at equal `ts`,
/// `ClientLog.eventComesFirst`: input order, or by kind
/// join/reconnect before that millisecond's reports, every other event
/// after them). Reports met while
/// no connection is open belong to none and fall outside every span's
/// `reports` range.
///
/// When the log begins without a join/reconnect, the first connection starts
/// at the first event whatever it is; if that very event is a
/// `disconnect`/`meeting_leave`, that gives a zero-length connection, which
/// is kept (it is what the spec's words give, and it records that the client
/// was connected when its log began).
struct ConnectionSpanner {
    private let events: [TimedEvent]
    /// The connections closed so far, in order.
    private(set) var spans: [ConnectionSpan] = []
    /// Whether a connection is open (the one that will be `spans.count`).
    private(set) var isOpen = false
    /// Where the open connection began.
    private(set) var start: Int64 = 0
    private var i = 0, j = 0
    private var eventLo = 0, reportLo = 0
    private var rank = SameTimeRank()

    init(events: [TimedEvent]) { self.events = events }

    /// Takes every event that comes before a report at `ts`, then the report
    /// (the next one of the series); returns whether a connection holds it.
    @discardableResult
    mutating func report(ts: Int64) -> Bool {
        let r = rank.rank(of: ts)
        while i < events.count, ClientLog.eventComesFirst(events[i], reportTs: ts, reportRank: r) { takeEvent() }
        if i == 0, j == 0 { open(at: ts) }  // the log began with a report
        rank.take(ts)
        j += 1
        return isOpen
    }

    /// Takes the remaining events and closes the open connection at `last`,
    /// the client's last event time (reports included). Returns every span.
    mutating func finish(last: Int64?) -> [ConnectionSpan] {
        while i < events.count { takeEvent() }
        if isOpen, let last { close(at: last, eventHi: events.count) }
        return spans
    }

    private mutating func takeEvent() {
        let e = events[i]
        let kind = e.payload.kind
        if i == 0, j == 0, !kind.opensConnection { open(at: e.ts) }  // the log began late
        switch kind {
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

    private mutating func open(at ts: Int64) {
        isOpen = true; start = ts; eventLo = i; reportLo = j
    }

    private mutating func close(at ts: Int64, eventHi: Int) {
        spans.append(ConnectionSpan(index: spans.count, start: start, end: ts, reports: reportLo..<j, events: eventLo..<eventHi))
        isOpen = false
    }
}

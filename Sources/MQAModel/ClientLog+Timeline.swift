import MQABase

/// One step of a client's merged timeline: the event or the report at that
/// index of `ClientLog.events` / `ClientLog.reports`.
public enum TimelineItem: Equatable, Sendable {
    case event(Int)
    case report(Int)
}

extension ClientLog {
    /// The ordering rule of `ClientLog` between an event and a report:
    /// whether `event` comes before a report logged at `reportTs` that is
    /// the `reportRank`-th (from 0) of the client's reports at that `ts`.
    /// An earlier event does; at equal `ts` the event's `reportsBefore`
    /// decides (input order), or when it is `TimedEvent.byKind` its kind:
    /// a `meeting_join`/`reconnect` does, so that the reports of that
    /// millisecond belong to the new connection, and every other event of
    /// it comes after them.
    @inline(__always)
    public static func eventComesFirst(_ event: TimedEvent, reportTs: Int64, reportRank: Int) -> Bool {
        guard event.ts == reportTs else { return event.ts < reportTs }
        if event.reportsBefore == TimedEvent.byKind { return event.payload.kind.opensConnection }
        return Int(event.reportsBefore) <= reportRank
    }

    /// The client's events and reports in one time order, by
    /// `eventComesFirst`. The connection spans are cut along it; export
    /// writes stored chunks in the same order with the same rule.
    public func mergedTimeline() -> MergedTimeline { MergedTimeline(self) }
}

extension EventKind {
    /// `meeting_join` and `reconnect`: the events that open a connection.
    public var opensConnection: Bool { self == .meetingJoin || self == .reconnect }
}

/// Counts a client's reports of one millisecond as they go past in time
/// order: the `reportRank` that `ClientLog.eventComesFirst` takes.
public struct SameTimeRank: Sendable {
    private var lastTs = Int64.min
    private var taken = 0

    public init() {}

    /// The rank of the next report, at `ts`, among its millisecond's.
    public func rank(of ts: Int64) -> Int { ts == lastTs ? taken : 0 }

    /// Records that the next report, at `ts`, has gone past.
    public mutating func take(_ ts: Int64) {
        taken = ts == lastTs ? taken + 1 : 1
        lastTs = ts
    }
}

/// See `ClientLog.mergedTimeline()`.
public struct MergedTimeline: Sequence, IteratorProtocol {
    private let events: [TimedEvent]
    private let reportTs: [Int64]
    private var e = 0
    private var r = 0
    private var rank = SameTimeRank()

    init(_ client: ClientLog) {
        events = client.events
        reportTs = client.reports.ts
    }

    public mutating func next() -> TimelineItem? {
        if e < events.count,
           r == reportTs.count || ClientLog.eventComesFirst(events[e], reportTs: reportTs[r], reportRank: rank.rank(of: reportTs[r])) {
            e += 1
            return .event(e - 1)
        }
        guard r < reportTs.count else { return nil }
        rank.take(reportTs[r])
        r += 1
        return .report(r - 1)
    }
}

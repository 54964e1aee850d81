import MQABase

/// One step of a client's merged timeline: the event or the report at that
/// index of `ClientLog.events` / `ClientLog.reports`.
public enum TimelineItem: Equatable, Sendable {
    case event(Int)
    case report(Int)
}

extension ClientLog {
    /// The ordering rule of `ClientLog` between an event and a report:
    /// whether `event` comes before a report logged at `reportTs`. An
    /// earlier event does; at equal `ts` only a `meeting_join`/`reconnect`
    /// does, so that the reports of that millisecond belong to the new
    /// connection, and every other event of it comes after them.
    @inline(__always)
    public static func eventComesFirst(_ event: TimedEvent, reportTs: Int64) -> Bool {
        event.ts < reportTs || (event.ts == reportTs && event.payload.kind.opensConnection)
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

/// See `ClientLog.mergedTimeline()`.
public struct MergedTimeline: Sequence, IteratorProtocol {
    private let events: [TimedEvent]
    private let reportTs: [Int64]
    private var e = 0
    private var r = 0

    init(_ client: ClientLog) {
        events = client.events
        reportTs = client.reports.ts
    }

    public mutating func next() -> TimelineItem? {
        if e < events.count, r == reportTs.count || ClientLog.eventComesFirst(events[e], reportTs: reportTs[r]) {
            e += 1
            return .event(e - 1)
        }
        guard r < reportTs.count else { return nil }
        r += 1
        return .report(r - 1)
    }
}

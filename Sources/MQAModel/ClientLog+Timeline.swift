import MQABase

extension ClientLog {
    /// The ordering rule of `ClientLog` between an event and a report:
    /// whether `event` comes before a report logged at `reportTs` that is
    /// the `reportRank`-th (from 0) of the client's reports at that `ts`.
    /// An earlier event does; at equal `ts` the event's `reportsBefore`
    /// decides (input order), or when it is `TimedEvent.byKind` its kind:
    /// a `meeting_join`/`reconnect` does, so that the reports of that
    /// millisecond belong to the new connection, and every other event of
    /// it comes after them.
    ///
    /// The one rule of a client's time order: the connection spans are cut
    /// along it (`ConnectionSpanner`) and export writes stored chunks in it,
    /// each walking events and reports with a `SameTimeRank`.
    @inline(__always)
    public static func eventComesFirst(_ event: TimedEvent, reportTs: Int64, reportRank: Int) -> Bool {
        guard event.ts == reportTs else { return event.ts < reportTs }
        if event.reportsBefore == TimedEvent.byKind { return event.payload.kind.opensConnection }
        return Int(event.reportsBefore) <= reportRank
    }
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

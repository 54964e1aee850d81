import MQABase

/// The header of a meeting report: what meeting, when, on which engine.
public struct MeetingHeader: Sendable, Equatable {
    public var meeting: String
    /// `MeetingLog.title`.
    public var title: String?
    /// `MeetingLog.engine`: the earliest `meeting_join`'s engine with a
    /// quality feed, else the earliest's.
    public var engine: String?
    /// `MeetingLog.span`: the first and last event time over all clients.
    public var start: Int64?
    public var end: Int64?
    /// Number of clients that logged anything in the meeting.
    public var participants: Int

    public init(meeting: String, title: String?, engine: String?, start: Int64?, end: Int64?, participants: Int) {
        self.meeting = meeting
        self.title = title
        self.engine = engine
        self.start = start
        self.end = end
        self.participants = participants
    }

    /// Reads the header off a meeting's log.
    public init(_ log: MeetingLog) { self.init(log, span: log.span) }

    /// The header of a log read without its reports, whose `span` (over
    /// events and reports) the analysis found as it read them.
    public init(_ log: MeetingLog, span: (first: Int64, last: Int64)?) {
        self.init(meeting: log.meeting, title: log.title, engine: log.engine,
                  start: span?.first, end: span?.last, participants: log.clients.count)
    }

    /// `end - start`; `nil` when nothing was logged.
    public var durationMs: Int64? {
        guard let start, let end else { return nil }
        return end - start
    }
}

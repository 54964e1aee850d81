import MQADomain

/// The header of a meeting report: what meeting, when, on which engine.
public struct MeetingHeader: Sendable, Equatable {
    public var meeting: String
    /// The latest `room_title_change` title (by `ts`, over all clients),
    /// else the title of the earliest `meeting_join` that carries one;
    /// `nil` when no client logged a title.
    public var title: String?
    /// `MeetingLog.engine`: the engine of the earliest `meeting_join`.
    public var engine: String?
    /// The meeting's first and last event time over all clients, quality
    /// reports included; `nil` when nothing was logged.
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
    public init(_ log: MeetingLog) {
        var latestRename: (ts: Int64, title: String)?
        var firstJoin: (ts: Int64, title: String)?
        var start: Int64?, end: Int64?
        for client in log.clients {
            if let span = client.span {
                start = min(start ?? span.first, span.first)
                end = max(end ?? span.last, span.last)
            }
            for e in client.events {
                switch e.payload {
                // `>=`/`<` over clients in uid order: at equal ts the later
                // uid's rename wins and the earlier uid's join title wins,
                // so the choice never depends on input order.
                case .roomTitleChange(let title, _) where latestRename == nil || e.ts >= latestRename!.ts:
                    latestRename = (e.ts, title)
                case .meetingJoin(_, let title?) where firstJoin == nil || e.ts < firstJoin!.ts:
                    firstJoin = (e.ts, title)
                default: break
                }
            }
        }
        self.init(meeting: log.meeting, title: latestRename?.title ?? firstJoin?.title, engine: log.engine,
                  start: start, end: end, participants: log.clients.count)
    }

    /// `end - start`; `nil` when nothing was logged.
    public var durationMs: Int64? {
        guard let start, let end else { return nil }
        return end - start
    }
}

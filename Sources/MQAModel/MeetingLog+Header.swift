import MQABase

extension MeetingLog {
    /// The meeting's title: the latest `room_title_change` (by `ts`, over
    /// all clients), else the title of the earliest `meeting_join` that
    /// carries one; `nil` when no client logged a title. Reports and the
    /// summary tables both read it here, so they never disagree.
    public var title: String? {
        var choice = MeetingTitleChoice()
        for (c, client) in clients.enumerated() {
            for (i, e) in client.events.enumerated()
                where MeetingTitleChoice.names(e.payload.kind) && e.payload.string("title") != nil {
                choice.offer(e.payload.kind, ts: e.ts, at: .init(client: c, event: i))
            }
        }
        return choice.chosen.flatMap { clients[$0.client].events[$0.event].payload.string("title") }
    }

    /// The first and last event time over all clients, quality reports
    /// included; `nil` when nothing was logged.
    public var span: (first: Int64, last: Int64)? {
        var result: (first: Int64, last: Int64)?
        for client in clients {
            guard let s = client.span else { continue }
            result = (min(result?.first ?? s.first, s.first), max(result?.last ?? s.last, s.last))
        }
        return result
    }
}

/// The rule of `MeetingLog.title`, offered the events that carry a title one
/// at a time, clients in order and each client's events in order: which
/// one's title the meeting has so far. At equal `ts` the later uid's rename
/// wins and the earlier uid's join title wins, so the choice never depends
/// on input order. A meeting's reader uses it to let go of long titles that
/// can no longer be chosen, as no report shows them.
public struct MeetingTitleChoice: Sendable {
    /// An event: its client's position among the meeting's clients, and its
    /// position among that client's `events`.
    public struct Place: Sendable, Equatable {
        public var client: Int
        public var event: Int

        public init(client: Int, event: Int) {
            self.client = client
            self.event = event
        }
    }

    private var rename: (ts: Int64, place: Place)?
    private var join: (ts: Int64, place: Place)?

    public init() {}

    /// Whether events of `kind` can name the meeting.
    public static func names(_ kind: EventKind) -> Bool { kind == .roomTitleChange || kind == .meetingJoin }

    /// The event whose title is chosen so far.
    public var chosen: Place? { rename?.place ?? join?.place }

    /// Offers a `meeting_join` or `room_title_change` that carries a title;
    /// returns the one event whose title can no longer be chosen now, if
    /// any: this one, or one offered before (once a rename is offered, no
    /// join's title can be chosen).
    @discardableResult
    public mutating func offer(_ kind: EventKind, ts: Int64, at place: Place) -> Place? {
        if kind == .roomTitleChange {
            guard let current = rename else {
                rename = (ts, place)
                defer { join = nil }
                return join?.place
            }
            guard ts >= current.ts else { return place }
            rename = (ts, place)
            return current.place
        }
        guard rename == nil else { return place }
        if let current = join, ts >= current.ts { return place }
        defer { join = (ts, place) }
        return join?.place
    }
}

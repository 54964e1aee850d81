import MQABase

extension MeetingLog {
    /// The meeting's title: the latest `room_title_change` (by `ts`, over
    /// all clients), else the title of the earliest `meeting_join` that
    /// carries one; `nil` when no client logged a title. Reports and the
    /// summary tables both read it here, so they never disagree.
    public var title: String? {
        var latestRename: (ts: Int64, title: String)?
        var firstJoin: (ts: Int64, title: String)?
        for client in clients {
            for e in client.events {
                // `>=`/`<` over clients in uid order: at equal ts the later
                // uid's rename wins and the earlier uid's join title wins,
                // so the choice never depends on input order.
                if e.payload.kind == .roomTitleChange, let title = e.payload.string("title"),
                    latestRename == nil || e.ts >= latestRename!.ts {
                    latestRename = (e.ts, title)
                } else if e.payload.kind == .meetingJoin, let title = e.payload.string("title"),
                    firstJoin == nil || e.ts < firstJoin!.ts {
                    firstJoin = (e.ts, title)
                }
            }
        }
        return latestRename?.title ?? firstJoin?.title
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

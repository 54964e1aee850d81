import MQAStore

extension EventStore {
    /// Stores a non-report event; `false` when the same event (client, ts,
    /// kind and canonical payload) is already stored: a duplicate.
    func insertEvent(client: Int64, ts: Int64, kind: EventKind, payload: String, seq: Int64) throws -> Bool {
        let insert = try db.cached("INSERT OR IGNORE INTO events (client_id, ts, kind, payload, seq) VALUES (?, ?, ?, ?, ?)")
        insert.bind(1, client)
        insert.bind(2, ts)
        insert.bind(3, Int64(kind.rawValue))
        insert.bind(4, payload)
        insert.bind(5, seq)
        try insert.run()
        return db.changes > 0
    }

    /// A client's non-report events in time order (equal times in input order).
    func events(client: Int64) throws -> [TimedEvent] {
        let select = try db.cached("SELECT ts, kind, payload FROM events WHERE client_id = ? ORDER BY ts, seq")
        select.bind(1, client)
        var parser = LineParser(nowMs: .max)
        var out: [TimedEvent] = []
        while try select.step() {
            let ts = select.int64(0)
            guard let kind = EventKind(rawValue: UInt8(clamping: select.int64(1))) else {
                throw StoreError.inconsistent("unknown event kind \(select.int64(1))")
            }
            let payload = select.withBlob(2) { raw in
                parser.payload(of: kind, canonicalJSON: raw.assumingMemoryBound(to: UInt8.self))
            }
            guard let payload else {
                throw StoreError.inconsistent("unreadable payload of a \(kind.name) event at \(ts)")
            }
            out.append(TimedEvent(ts: ts, payload: payload))
        }
        return out
    }

    /// Everything one meeting's clients logged, as the tier engine takes it;
    /// `nil` when the store has no such meeting.
    public func meetingLog(_ meeting: String) throws -> MeetingLog? {
        let clients = try clients(meeting: meeting)
        if clients.isEmpty { return nil }
        var logs: [ClientLog] = []
        for (id, uid) in clients {
            let series = try reportSeries(client: id, meeting: meeting, uid: uid)
            var columns = ReportColumns()
            columns.ts = series.ts
            columns.loss = series.columns[0].map { $0.doubleValue ?? 0 }
            columns.rtt = series.columns[1].map { $0.doubleValue ?? 0 }
            columns.jitter = series.columns[2].map { $0.doubleValue ?? 0 }
            columns.bitrate = series.columns[3].map { $0.doubleValue ?? 0 }
            columns.mos = series.columns[4].map { $0.doubleValue ?? .nan }
            logs.append(ClientLog(uid: uid, events: try events(client: id), reports: columns))
        }
        return MeetingLog(meeting: meeting, clients: logs)
    }
}

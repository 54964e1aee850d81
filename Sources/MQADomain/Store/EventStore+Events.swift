import MQAStore

extension EventStore {
    /// Stores a client's non-report events (any order, may repeat stored
    /// ones); returns the number of duplicates dropped.
    func storeEvents(_ series: EventSeries, client: Int64) throws -> Int {
        try storeSeries(series, client: client, table: "event_chunks",
            decode: { _, blob in EventSeries(block: try self.codec.decodeEvents(blob)) },
            insert: { merged, range in
                let block = EventBlock(
                    ts: Array(merged.block.ts[range]), kinds: Array(merged.block.kinds[range]),
                    payloads: Array(merged.block.payloads[range]))
                let blob = try self.codec.encode(block)
                let insert = try self.db.cached(
                    "INSERT INTO event_chunks (client_id, first_ts, last_ts, count, kinds, data) VALUES (?, ?, ?, ?, ?, ?)")
                insert.bind(1, client)
                insert.bind(2, block.ts.first!)
                insert.bind(3, block.ts.last!)
                insert.bind(4, block.ts.count)
                insert.bind(5, block.kinds.reduce(Int64(0)) { $0 | (1 << Int64($1)) })
                insert.bind(6, blob: blob)
                try insert.run()
            })
    }

    /// A client's non-report events in time order (equal times in input order).
    func events(client: Int64, meeting: String, uid: String) throws -> [TimedEvent] {
        let select = try db.cached("SELECT id, data FROM event_chunks WHERE client_id = ? ORDER BY first_ts, id")
        select.bind(1, client)
        var parser = LineParser(nowMs: .max)
        var out: [TimedEvent] = []
        while try select.step() {
            let id = select.int64(0)
            let block: EventBlock
            do {
                block = try select.withBlob(1) { try codec.decodeEvents($0) }
            } catch {
                throw StoreError.damagedChunk(meeting: meeting, uid: uid, chunk: id, reason: "\(error)")
            }
            for i in block.ts.indices {
                guard let kind = EventKind(rawValue: block.kinds[i]), kind != .qualityReport,
                    let payload = block.payloads[i].withUnsafeBufferPointer({ parser.payload(of: kind, canonicalJSON: $0) })
                else {
                    throw StoreError.damagedChunk(meeting: meeting, uid: uid, chunk: id, reason: "unreadable event \(i)")
                }
                out.append(TimedEvent(ts: block.ts[i], payload: payload))
            }
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
            logs.append(ClientLog(uid: uid, events: try events(client: id, meeting: meeting, uid: uid), reports: columns))
        }
        return MeetingLog(meeting: meeting, clients: logs)
    }
}

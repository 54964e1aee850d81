import MQABase

/// The `connection_context` table: what a dump's standard stats add about
/// each imported connection (path, outgoing video's limits, audio
/// concealment), kept for the meeting report.
extension EventStore {
    /// Stores (or replaces, on a re-ingest) one connection's context;
    /// called on the writer's transaction, with the connection's events.
    package func putConnectionContext(_ c: ConnectionContext) throws {
        guard let meeting = c.meeting, let uid = c.uid else { return }
        let client = try clientID(meeting: Array(meeting.utf8), uid: Array(uid.utf8))
        let s = try db.cached(
            """
            INSERT OR REPLACE INTO connection_context
              (client_id, connection, paths, cpu_ms, bandwidth_ms, other_ms, concealment)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        s.bind(1, client)
        s.bind(2, c.connection)
        s.bind(3, c.paths.joined(separator: ConnectionContext.pathSeparator))
        // The columns cpu_ms, bandwidth_ms, other_ms: `limitReasons` in order.
        for (k, reason) in ConnectionContext.limitReasons.enumerated() { s.bind(Int32(4 + k), c.limitedMs[reason] ?? 0) }
        if let v = c.concealment { s.bind(7, v) } else { s.bindNull(7) }
        try s.run()
    }

    /// Whether the store holds a client `uid` of `meeting` (made by an
    /// earlier batch or input, committed or not).
    package func hasClient(meeting: String, uid: String) throws -> Bool {
        let s = try db.cached("SELECT 1 FROM clients c JOIN meetings m ON m.id = c.meeting_id WHERE m.meeting = ? AND c.uid = ?")
        defer { s.reset() }
        s.bind(1, meeting)
        s.bind(2, uid)
        return try s.step()
    }

    /// A meeting's connection contexts by uid, connections in id order;
    /// empty for a store written before the table existed.
    public func connectionContexts(meeting: String) throws -> [String: [ConnectionContext]] {
        // Cached: a report of every meeting asks once per meeting.
        let exists = try db.cached("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'connection_context'")
        defer { exists.reset() }
        guard try exists.step() else { return [:] }
        let s = try db.cached(
            """
            SELECT c.uid, x.connection, x.paths, x.cpu_ms, x.bandwidth_ms, x.other_ms, x.concealment
            FROM connection_context x JOIN clients c ON c.id = x.client_id JOIN meetings m ON m.id = c.meeting_id
            WHERE m.meeting = ? ORDER BY c.uid, x.connection
            """)
        defer { s.reset() }
        s.bind(1, meeting)
        var out: [String: [ConnectionContext]] = [:]
        while try s.step() {
            let uid = s.string(0) ?? ""
            var c = ConnectionContext(file: "", connection: s.string(1) ?? "")
            c.meeting = meeting
            c.uid = uid
            let paths = s.string(2) ?? ""
            c.paths = paths.isEmpty ? [] : paths.components(separatedBy: ConnectionContext.pathSeparator)
            for (k, name) in ConnectionContext.limitReasons.enumerated() where s.int64(Int32(3 + k)) > 0 {
                c.limitedMs[name] = s.int64(Int32(3 + k))
            }
            c.concealment = s.isNull(6) ? nil : s.double(6)
            out[uid, default: []].append(c)
        }
        return out
    }
}

import Foundation
import MQABase
import MQAModel

/// The `connection_context` table: what a dump's standard stats add about
/// each imported connection (path, outgoing video's limits, audio
/// concealment), kept for the meeting report.
extension EventStore {
    /// Stores (or replaces, on a re-ingest) one connection's context;
    /// called on the writer's transaction, with the connection's events.
    /// Returns the client's row id (nil without a meeting and uid).
    @discardableResult
    package func putConnectionContext(_ c: ConnectionContext) throws -> Int64? {
        guard let meeting = c.meeting, let uid = c.uid else { return nil }
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
        let clear = try db.cached("DELETE FROM connection_names WHERE client_id = ? AND connection = ?")
        clear.bind(1, client)
        clear.bind(2, c.connection)
        try clear.run()
        let name = try db.cached("INSERT OR IGNORE INTO connection_names (client_id, connection, name) VALUES (?, ?, ?)")
        for n in c.knownAs {
            name.reset()
            name.bind(1, client)
            name.bind(2, c.connection)
            name.bind(3, n)
            try name.run()
        }
        try replaceMap(c.senderTracks, table: "connection_tracks", columns: ("track", "sender_track"), client: client, connection: c.connection)
        try replaceMap(c.senderPublishers, table: "connection_publishers", columns: ("publisher", "sender_publisher"),
                       client: client, connection: c.connection)
        let clearReceived = try db.cached("DELETE FROM connection_received WHERE client_id = ? AND connection = ?")
        clearReceived.bind(1, client)
        clearReceived.bind(2, c.connection)
        try clearReceived.run()
        if let r = c.received {
            let insert = try db.cached("INSERT INTO connection_received (client_id, connection, received) VALUES (?, ?, ?)")
            insert.bind(1, client)
            insert.bind(2, c.connection)
            insert.bind(3, ConnectionContext.receivedJSON(r))
            try insert.run()
        }
        return client
    }

    /// What a meeting's imported connections received (`connection_received`),
    /// by uid and connection, with their paths (`connection_context`);
    /// empty for a store without the table. A row
    /// whose JSON does not read (a damaged store) is left out: it is
    /// evidence for a cause, never a figure.
    public func receivedLoss(meeting: String) throws -> [String: [String: ReceivedLoss]] {
        guard try hasTable("connection_received") else { return [:] }
        let s = try db.cached(
            """
            SELECT c.uid, x.connection, x.received, p.paths
            FROM connection_received x JOIN clients c ON c.id = x.client_id JOIN meetings m ON m.id = c.meeting_id
            LEFT JOIN connection_context p ON p.client_id = x.client_id AND p.connection = x.connection
            WHERE m.meeting = ? ORDER BY c.uid, x.connection
            """)
        defer { s.reset() }
        s.bind(1, meeting)
        var out: [String: [String: ReceivedLoss]] = [:]
        while try s.step() {
            guard let text = s.string(2), let object = try? ExactJSONReader.parse(Data(text.utf8)),
                  case .success(var received) = ConnectionContext.received(object)
            else { continue }
            let paths = s.string(3) ?? ""
            received.paths = paths.isEmpty ? [] : paths.components(separatedBy: ConnectionContext.pathSeparator)
            out[s.string(0) ?? "", default: [:]][s.string(1) ?? ""] = received
        }
        return out
    }

    /// Replaces a connection's rows of a two-column map table
    /// (`connection_tracks`, `connection_publishers`) with `map`.
    private func replaceMap(_ map: [String: String], table: String, columns: (String, String), client: Int64, connection: String) throws {
        let clear = try db.cached("DELETE FROM \(table) WHERE client_id = ? AND connection = ?")
        clear.bind(1, client)
        clear.bind(2, connection)
        try clear.run()
        let insert = try db.cached(
            "INSERT OR REPLACE INTO \(table) (client_id, connection, \(columns.0), \(columns.1)) VALUES (?, ?, ?, ?)")
        for (local, sender) in map.sorted(by: { $0.key < $1.key }) {
            insert.reset()
            insert.bind(1, client)
            insert.bind(2, connection)
            insert.bind(3, local)
            insert.bind(4, sender)
            try insert.run()
        }
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
    /// empty for a store written before the table existed. `withReceived`:
    /// with what each connection received (an export needs it; a report's
    /// *Connections* table does not show it).
    public func connectionContexts(meeting: String, withReceived: Bool = true) throws -> [String: [ConnectionContext]] {
        guard try hasTable("connection_context") else { return [:] }
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
        for (uid, names) in try connectionNames(meeting: meeting) {
            guard var contexts = out[uid] else { continue }
            for i in contexts.indices { contexts[i].knownAs = names[contexts[i].connection] ?? [] }
            out[uid] = contexts
        }
        for (uid, tracks) in try connectionTracks(meeting: meeting) {
            guard var contexts = out[uid] else { continue }
            for i in contexts.indices { contexts[i].senderTracks = tracks[contexts[i].connection] ?? [:] }
            out[uid] = contexts
        }
        for (uid, publishers) in try connectionMap(meeting: meeting, table: "connection_publishers", columns: ("publisher", "sender_publisher")) {
            guard var contexts = out[uid] else { continue }
            for i in contexts.indices { contexts[i].senderPublishers = publishers[contexts[i].connection] ?? [:] }
            out[uid] = contexts
        }
        for (uid, received) in withReceived ? try receivedLoss(meeting: meeting) : [:] {
            guard var contexts = out[uid] else { continue }
            for i in contexts.indices { contexts[i].received = received[contexts[i].connection] }
            out[uid] = contexts
        }
        return out
    }

    /// A meeting's received tracks by the sender's id (`connection_tracks`),
    /// by uid and connection; empty for a store without the table.
    func connectionTracks(meeting: String) throws -> [String: [String: [String: String]]] {
        try connectionMap(meeting: meeting, table: "connection_tracks", columns: ("track", "sender_track"))
    }

    /// A meeting's rows of a two-column map table, by uid and connection;
    /// empty for a store without the table.
    private func connectionMap(meeting: String, table: String, columns: (String, String)) throws -> [String: [String: [String: String]]] {
        guard try hasTable(table) else { return [:] }
        let s = try db.cached(
            """
            SELECT c.uid, x.connection, x.\(columns.0), x.\(columns.1)
            FROM \(table) x JOIN clients c ON c.id = x.client_id JOIN meetings m ON m.id = c.meeting_id
            WHERE m.meeting = ? ORDER BY c.uid, x.connection, x.\(columns.0)
            """)
        defer { s.reset() }
        s.bind(1, meeting)
        var out: [String: [String: [String: String]]] = [:]
        while try s.step() {
            out[s.string(0) ?? "", default: [:]][s.string(1) ?? "", default: [:]][s.string(2) ?? ""] = s.string(3) ?? ""
        }
        return out
    }

    /// For each participant of `meeting`, the sender's id of each track it
    /// received, by the id its dump gave it. Only where that is one to one:
    /// a track two of its connections name differently is left as it is,
    /// and so are two of its tracks of one sender's track (overlapping
    /// connections, say the bridge and P2P, each receiving it): made one,
    /// one connection's end would end the other's subscription.
    public func senderTracks(meeting: String) throws -> [String: [String: String]] {
        var out: [String: [String: String]] = [:]
        for (uid, connections) in try connectionTracks(meeting: meeting) {
            var tracks = EventStore.agreed(connections)
            var locals: [String: Int] = [:]
            for sender in tracks.values { locals[sender, default: 0] += 1 }
            tracks = tracks.filter { locals[$0.value] == 1 }
            if !tracks.isEmpty { out[uid] = tracks }
        }
        return out
    }

    /// For each participant of `meeting`, the other name of each publisher
    /// its dump gave a track (`connection_publishers`: the msid's stream
    /// for a `remote-<ssrc>`, the SSRC's `remote-<ssrc>` for a stream). A
    /// name two of its connections read differently is left as it is.
    /// Unlike tracks, many names may read as one publisher: a sender's
    /// camera and screen are one person.
    public func senderPublishers(meeting: String) throws -> [String: [String: String]] {
        var out: [String: [String: String]] = [:]
        for (uid, connections) in try connectionMap(meeting: meeting, table: "connection_publishers", columns: ("publisher", "sender_publisher")) {
            let names = EventStore.agreed(connections)
            if !names.isEmpty { out[uid] = names }
        }
        return out
    }

    /// One participant's connections' maps made one, leaving out a key
    /// two connections give different values.
    static func agreed(_ connections: [String: [String: String]]) -> [String: String] {
        var merged: [String: String] = [:]
        var mixed: Set<String> = []
        for (key, value) in connections.values.joined() {
            if let other = merged[key], other != value { mixed.insert(key) } else { merged[key] = value }
        }
        for key in mixed { merged[key] = nil }
        return merged
    }

    /// A meeting's connection contexts that have figures to show (a
    /// report's *Connections*), by uid; uids without any left out.
    public func connectionFigures(meeting: String) throws -> [String: [ConnectionContext]] {
        try connectionContexts(meeting: meeting, withReceived: false).compactMapValues { list in
            let shown = list.filter(\.hasFigures)
            return shown.isEmpty ? nil : shown
        }
    }

    /// A meeting's connection names (`connection_names`) by uid and
    /// connection, in name order; empty for a store without the table.
    func connectionNames(meeting: String) throws -> [String: [String: [String]]] {
        guard try hasTable("connection_names") else { return [:] }
        let s = try db.cached(
            """
            SELECT c.uid, x.connection, x.name
            FROM connection_names x JOIN clients c ON c.id = x.client_id JOIN meetings m ON m.id = c.meeting_id
            WHERE m.meeting = ? ORDER BY c.uid, x.connection, x.name
            """)
        defer { s.reset() }
        s.bind(1, meeting)
        var out: [String: [String: [String]]] = [:]
        while try s.step() {
            out[s.string(0) ?? "", default: [:]][s.string(1) ?? "", default: []].append(s.string(2) ?? "")
        }
        return out
    }

    /// Which participant of `meeting` each publisher name stands for
    /// (Docs/import.md, "One call, several dumps"): a name one participant's
    /// connections are known by, and no other's. A name that is itself a
    /// participant's uid is that participant already, and is left out.
    public func publisherNames(meeting: String, uids: Set<String>) throws -> [String: String] {
        var owner: [String: String] = [:]
        var shared: Set<String> = []
        for (uid, connections) in try connectionNames(meeting: meeting) {
            for name in connections.values.joined() where !uids.contains(name) {
                if let other = owner[name], other != uid { shared.insert(name) } else { owner[name] = uid }
            }
        }
        for name in shared { owner[name] = nil }
        return owner
    }

    /// Names that two or more participants of one of `meetings` are known
    /// by, with those participants (uid order), by meeting and name. Two
    /// people do not send one stream: such a pair is almost always one
    /// browser's two downloads (its webrtc-internals and its rtcstats dump)
    /// ingested as two people.
    public func sharedNames(meetings: Set<String>) throws -> [(meeting: String, name: String, uids: [String])] {
        guard !meetings.isEmpty, try hasTable("connection_names") else { return [] }
        // Each meeting's names in name order, grouped here: one pass. (A
        // correlated subquery per name, then a join with the grouped names,
        // made SQLite loop over names within names: 30 s for two dumps of
        // 15,000 names each.)
        let s = try db.cached(
            """
            SELECT DISTINCT x.name, c.uid
            FROM connection_names x JOIN clients c ON c.id = x.client_id JOIN meetings m ON m.id = c.meeting_id
            WHERE m.meeting = ? ORDER BY x.name, c.uid
            """)
        var out: [(meeting: String, name: String, uids: [String])] = []
        for meeting in meetings.sorted() {
            s.reset()
            s.bind(1, meeting)
            var name: String? = nil
            var uids: [String] = []
            func close() {
                if let name, uids.count > 1 { out.append((meeting, name, uids)) }
            }
            while try s.step() {
                let n = s.string(0) ?? "", uid = s.string(1) ?? ""
                if n != name {
                    close()
                    name = n
                    uids = []
                }
                uids.append(uid)
            }
            close()
        }
        s.reset()
        return out
    }

    /// Whether the store has the table `name` (a store written before it
    /// existed has not). Cached: a report of every meeting asks per meeting.
    func hasTable(_ name: String) throws -> Bool {
        let s = try db.cached("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        defer { s.reset() }
        s.bind(1, name)
        return try s.step()
    }
}

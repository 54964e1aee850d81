import Foundation
import MQAQueries
import MQAStore

/// The mqa store: a SQLite database with the schema of `Queries/schema.sql`.
///
/// It knows the domain (meetings, clients, events, report chunks); the
/// generic SQLite and codec work is `MQAStore`'s.
public final class EventStore {
    public let db: Database
    var codec = ChunkCodec()
    /// Client ids by (meeting, uid) bytes: the ingest loop resolves a client
    /// per line.
    private var clientIDs: [ClientKey: Int64] = [:]

    struct ClientKey: Hashable {
        var meeting: [UInt8]
        var uid: [UInt8]
    }

    /// Opens or creates the store at `path`.
    public init(path: String, readOnly: Bool = false) throws {
        db = try Database(path: path, readOnly: readOnly)
        if !readOnly { try db.execute(Queries.schema) }
    }

    /// Opens an existing store for reading, with an error that says how to
    /// make one when there is none. It writes nothing when the schema is
    /// there already: a report must not queue behind an ingest's write lock
    /// (in WAL mode readers never wait for the writer). `mqa query` may
    /// still write: it refreshes stale summary tables first.
    public static func openExisting(path: String) throws -> EventStore {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw StoreError.noStore(path) }
        if isDirectory.boolValue { throw StoreError.notAStore(path, "is a directory") }
        return try EventStore(path: path, readOnly: false, migrate: false)
    }

    /// Opens the store at `path`; `migrate: false` creates the schema only
    /// when the file has none yet.
    init(path: String, readOnly: Bool = false, migrate: Bool) throws {
        db = try Database(path: path, readOnly: readOnly)
        if !readOnly && !migrate {
            let probe = try db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'event_kinds'")
            guard try probe.step() else { return }
            if probe.int(0) == 0 { try db.execute(Queries.schema) }
        } else if !readOnly {
            try db.execute(Queries.schema)
        }
    }

    /// The id of the client (`meeting`, `uid`), created when new.
    func clientID(meeting: [UInt8], uid: [UInt8]) throws -> Int64 {
        let key = ClientKey(meeting: meeting, uid: uid)
        if let id = clientIDs[key] { return id }
        // Bounded: a log with millions of distinct meetings must not keep
        // them all in memory (the database is the index).
        if clientIDs.count >= EventStore.clientCacheLimit { clientIDs.removeAll(keepingCapacity: true) }
        let meetingText = String(decoding: meeting, as: UTF8.self)
        let uidText = String(decoding: uid, as: UTF8.self)
        let insertMeeting = try db.cached("INSERT OR IGNORE INTO meetings (meeting) VALUES (?)")
        insertMeeting.bind(1, meetingText)
        try insertMeeting.run()
        let insertClient = try db.cached(
            "INSERT OR IGNORE INTO clients (meeting_id, uid) SELECT id, ? FROM meetings WHERE meeting = ?")
        insertClient.bind(1, uidText)
        insertClient.bind(2, meetingText)
        try insertClient.run()
        let select = try db.cached(
            "SELECT c.id FROM clients c JOIN meetings m ON m.id = c.meeting_id WHERE m.meeting = ? AND c.uid = ?")
        select.bind(1, meetingText)
        select.bind(2, uidText)
        guard try select.step() else { throw StoreError.inconsistent("client \(meetingText)/\(uidText) vanished") }
        let id = select.int64(0)
        select.reset()
        clientIDs[key] = id
        return id
    }

    static let clientCacheLimit = 4096

    /// Forgets cached ids: after a rollback they may name rows that are gone.
    func forgetCachedIDs() { clientIDs.removeAll() }

    /// Meeting ids in the store, sorted.
    public func meetings() throws -> [String] {
        let s = try db.prepare("SELECT meeting FROM meetings ORDER BY meeting")
        var out: [String] = []
        while try s.step() { out.append(s.string(0) ?? "") }
        return out
    }

    /// The clients of a meeting: (client id, uid), sorted by uid.
    public func clients(meeting: String) throws -> [(id: Int64, uid: String)] {
        let s = try db.cached(
            "SELECT c.id, c.uid FROM clients c JOIN meetings m ON m.id = c.meeting_id WHERE m.meeting = ? ORDER BY c.uid")
        s.bind(1, meeting)
        var out: [(Int64, String)] = []
        while try s.step() { out.append((s.int64(0), s.string(1) ?? "")) }
        return out
    }
}

/// Store-level failures with messages a user can act on.
public enum StoreError: Error, CustomStringConvertible {
    case noStore(String)
    case noMeeting(String)
    case inconsistent(String)
    case notAStore(String, String)
    case damagedChunk(meeting: String, uid: String, table: String, chunk: Int64, reason: String)

    public var description: String {
        switch self {
        case .noStore(let path): "no store at \(path) (create one with `mqa ingest FILE...`, or pass --db PATH)"
        case .noMeeting(let id): "no meeting \"\(id)\" in the store (`mqa query meetings` lists them)"
        case .inconsistent(let what): "store is inconsistent: \(what)"
        case .notAStore(let path, let why): "\(path) is not an mqa store: \(why)"
        case .damagedChunk(let meeting, let uid, let table, let chunk, let reason):
            "damaged \(table == "event_chunks" ? "event" : "report") chunk \(chunk) (\(table)) of meeting \"\(meeting)\", client \"\(uid)\": \(reason)"
        }
    }
}

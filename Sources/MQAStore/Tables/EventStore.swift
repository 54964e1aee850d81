import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MQAQueries
import MQABase
import MQAModel

/// The mqa store: a SQLite database with the schema of `Queries/schema.sql`.
///
/// It knows the domain (meetings, clients, events, report chunks); the
/// generic SQLite and codec work is `MQAStore`'s.
public final class EventStore {
    /// Internal: every SQL statement lives in this module, behind typed calls.
    package private(set) var db: Database
    var codec = ChunkCodec()
    /// Where the chunks this store's writer encodes are remembered for the
    /// summaries (`RecentChunks`); `refreshSummaries` clears it.
    package var recentChunks: RecentChunks? {
        get { codec.recent }
        set { codec.recent = newValue }
    }
    /// Client ids by (meeting, uid) bytes: the ingest loop resolves a client
    /// per line.
    private var clientIDs: [ClientKey: Int64] = [:]
    /// Reject text rows kept without raw bytes, by reason and size
    /// (`rejectText`): a log of millions of bad lines asks for a few of
    /// them again and again. Forgotten, as `clientIDs` are, when a rollback
    /// may have undone them.
    var rawlessRejectTexts: [RawlessRejectKey: Int64] = [:]
    /// The summary tables' DELETE and INSERT statements, by table: built
    /// and looked up by their SQL text, they were a tenth of summarizing a
    /// one-line meeting.
    var summaryStatements: [SummaryTable: (delete: Statement, insert: Statement)] = [:]
    /// Clients whose chunks since a time may not be full, by table: their
    /// new chunks were inserted after a trailing chunk that was not full,
    /// without rewriting it (`storeSeries`). The next commit rewrites them
    /// once (`compactTails`).
    var openTails: [ChunkTable: [Int64: Int64]] = [:]
    /// The tails filled within the open input's savepoint: undoing the
    /// input undoes their filling too, so they are open again.
    var tailsFilledInInput: [ChunkTable: [Int64: Int64]] = [:]
    /// Per table, the items one client holds from some time on, as the
    /// writer inserted them (`TailItems`): compacting that client's tail
    /// encodes them again without decoding the chunks just written.
    var tailItems: [ChunkTable: TailItems] = [:]
    /// How much a merge decodes at once (`MergeWindow`); tests make it
    /// small to cut merges into many windows, or whole.
    package var mergeWindow = MergeWindow()

    package struct ClientKey: Hashable {
        var meeting: [UInt8]
        var uid: [UInt8]

        package init(meeting: [UInt8], uid: [UInt8]) {
            self.meeting = meeting
            self.uid = uid
        }

        /// The bytes at once: the synthesized hash fed them one by one
        /// (1 % of an ingest's instructions with ids of 20–40 bytes).
        package func hash(into hasher: inout Hasher) {
            meeting.withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(meeting.count)
            uid.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Opens or creates the store at `path` for writing, upgrading an older
    /// schema in place.
    public init(path: String) throws {
        try EventStore.refuseDirectory(path)
        var attempts = 0
        while true {
            try EventStore.createAtomically(path)
            // Told on a read-only look first: the read-write open switches
            // a file to WAL (another program's database changed, or waited
            // on for that program's lock) before any table was looked at.
            try EventStore.refuseUnlessStore(path)
            let before = FileIdentity(path: path)
            // A failed ingest that created the store removes it when it holds
            // nothing and nobody else has it open (`removeIfUnused`); a file
            // opened just before that is no longer the store (SQLite says
            // "moved" on the first write, or the path names another file
            // now): open anew.
            do {
                db = try Database(path: path, access: .readWrite)
                // Again, now under this connection: the look above may not
                // have seen the file (a -shm it could not make).
                try refuseForeignTables()
                try refuseNewerSchema()
                try migrate()
                try db.execute(Queries.schema)
                try redoSummariesOfOlderRules()
                identity = FileIdentity(path: path)
                if identity != nil && identity == before { break }
            } catch let error as DatabaseError where error.primaryCode == DatabaseError.busy {
                throw StoreError.busy(path)
            } catch let error as DatabaseError where error.primaryCode == DatabaseError.notADatabase {
                // A text file given as --db: name it, as reading commands do.
                throw StoreError.notAStore(path, "the file is not a SQLite database")
            } catch let error as DatabaseError where error.code == DatabaseError.readOnlyMoved {
                // The file was removed under us: open the path anew, below.
            }
            attempts += 1
            if attempts == 3 { throw StoreError.notAStore(path, "it was removed or replaced by another process while it was opened") }
        }
    }

    private init(database: Database) {
        db = database
    }

    /// The file this store was opened on (for a writer), to tell it from
    /// another file at the same path.
    private(set) var identity: FileIdentity?

    /// Opens an existing store for reading. Nothing is written, not even the
    /// journal mode: a report never queues behind an ingest, and a store the
    /// user may only read (mode 444, a read-only folder) can still be read.
    /// A WAL store whose folder is not writable is opened immutable: then no
    /// writer may be active at the same time (Docs/store.md).
    public static func openExisting(path: String) throws -> EventStore {
        var st = stat()
        guard stat(path, &st) == 0 else { throw StoreError.noStore(path) }
        try refuseDirectory(path)
        if st.st_size == 0 { throw StoreError.notAStore(path, "the file is empty") }
        do {
            return try openReadOnly(path: path)
        } catch let error as DatabaseError where error.primaryCode == DatabaseError.notADatabase {
            throw StoreError.notAStore(path, "the file is not a SQLite database")
        }
    }

    /// SQLITE_CANTOPEN, READONLY or IOERR on a reader's first statement:
    /// the WAL's shared-memory file cannot be created or grown here.
    static func cannotShareMemory(_ error: DatabaseError) -> Bool {
        [DatabaseError.cannotOpen, DatabaseError.readOnly, DatabaseError.ioError].contains(error.primaryCode)
    }

    private static func openReadOnly(path: String) throws -> EventStore {
        // An old schema is upgraded once, when the store can be written.
        if access(path, W_OK) == 0 {
            do {
                let probe = try Database(path: path, access: .readOnly)
                if try EventStore(database: probe).schemaVersion() < EventStore.schemaVersion {
                    _ = try EventStore(path: path)
                }
            } catch let error as DatabaseError where EventStore.cannotShareMemory(error) {
                // A writable file in a folder that is not (or a full disk):
                // its -shm cannot be made. Read it as it is, below.
            }
        }
        var store = EventStore(database: try Database(path: path, access: .readOnly))
        do {
            try store.requireSchema()
        } catch let error as DatabaseError where EventStore.cannotShareMemory(error) {
            // An immutable open reads the main file alone: commits still in
            // the -wal would be silently missing from every answer.
            var wal = stat()
            if stat(path + "-wal", &wal) == 0 && wal.st_size > 0 { throw StoreError.walNeedsSharedMemory(path) }
            // SQLITE_CANTOPEN/READONLY: the -shm file cannot be created here.
            store = EventStore(database: try Database(path: path, access: .immutable))
            try store.requireSchema()
        }
        return store
    }

    /// The page size of new stores. Chunks are 1–6 KB: in 4 KB pages a
    /// 2.5 KB chunk took a page of its own (14–37 % of the store was slack),
    /// while in 1 KB pages a chunk spills into full overflow pages. On the
    /// benchmark corpus: 4096 → 0.706x of zstd -19 of the input (slack
    /// 14.8 %), 2048 → 0.675x (10.7 %), 1024 → 0.647x (6.5 %), with the same
    /// ingest CPU and report latency. Stores made before keep their size.
    static let pageSize = 1024

    /// The suffixes of a store's files: the store itself, then the files
    /// SQLite keeps beside it (`NAME-wal`, `NAME-shm`, `NAME-journal`).
    public static let fileSuffixes = ["", "-wal", "-shm", "-journal"]
    /// The files SQLite keeps beside a store, without the store.
    public static let companionSuffixes = Array(fileSuffixes.dropFirst())

    static func refuseDirectory(_ path: String) throws {
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            throw StoreError.isDirectory(path)
        }
    }

    /// Throws `notAStore` unless the file holds the mqa tables.
    func requireSchema() throws {
        let probe: Statement
        do {
            probe = try db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('event_kinds', 'files', 'meetings')")
            guard try probe.step() else { throw StoreError.notAStore(db.path, "it has no mqa tables") }
        } catch let error as DatabaseError where error.primaryCode == DatabaseError.notADatabase {
            throw StoreError.notAStore(db.path, "the file is not a SQLite database")
        }
        if probe.int(0) != 3 { throw StoreError.notAStore(db.path, "it has no mqa tables") }
        try refuseNewerSchema()
    }

    /// Throws when the file at `path` is another program's database or a
    /// later mqa's store, read without writing anything (not even the
    /// journal mode) and without waiting on a writer's lock beyond reads.
    static func refuseUnlessStore(_ path: String) throws {
        let probe: EventStore
        do {
            probe = EventStore(database: try Database(path: path, access: .readOnly))
            try probe.refuseForeignTables()
            try probe.refuseNewerSchema()
        } catch let error as DatabaseError where error.primaryCode == DatabaseError.notADatabase {
            throw StoreError.notAStore(path, "the file is not a SQLite database")
        } catch let error as DatabaseError where error.primaryCode == DatabaseError.busy {
            // Another program held its lock for the whole wait: nothing is
            // known of the file, so nothing is written to it.
            throw StoreError.busy(path)
        } catch let error as DatabaseError where EventStore.cannotShareMemory(error) {
            // A WAL store whose -shm cannot be made here: the read-write open
            // says why, and checks the tables again before writing.
        }
    }

    /// Throws `notAStore` for a database with tables that are not mqa's
    /// (another program's `--db other.db`): mqa's schema was written into
    /// it, and a reading command set its version. A database without any
    /// table is a new store.
    func refuseForeignTables() throws {
        let probe = try db.prepare(
            """
            SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table'),
                   (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('event_kinds', 'files', 'meetings'))
            """)
        guard try probe.step() else { return }
        if probe.int(0) > 0 && probe.int(1) != 3 { throw StoreError.notAStore(db.path, "it holds another program's tables, not mqa's") }
    }

    /// Throws `newerSchema` for a store a later mqa wrote (a database of
    /// another program's is told by `refuseForeignTables` first).
    func refuseNewerSchema() throws {
        let version = try schemaVersion()
        if version > EventStore.schemaVersion { throw StoreError.newerSchema(db.path, version) }
    }

    /// The id of the client (`meeting`, `uid`), created when new.
    package func clientID(meeting: [UInt8], uid: [UInt8]) throws -> Int64 {
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
        guard let id = try select.firstInt64() else { throw StoreError.inconsistent("client \(meetingText)/\(uidText) vanished") }
        clientIDs[key] = id
        return id
    }

    static let clientCacheLimit = 4096

    /// Forgets cached ids: after a rollback they may name rows that are gone.
    package func forgetCachedIDs() {
        clientIDs.removeAll()
        rawlessRejectTexts.removeAll()
    }

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

extension EventStore {
    /// Redoes the summaries a killed ingest left stale, when the store may
    /// be written; a read-only store, or one with nothing stale, is left
    /// alone, so that a reading command writes nothing it need not.
    ///
    /// A store this user may only read, whose summaries a killed ingest left
    /// stale, cannot be brought up to date here: the meetings without one
    /// would be missing from every listing read from the summary tables, so
    /// that is an error (`staleSummaries`), never a shorter answer.
    ///
    /// Summaries of an older mqa's rules, which such a store cannot have
    /// redone either, are still whole: they are used as they are.
    public static func refreshStaleSummaries(path: String) throws {
        // nil when nothing is stale; a throw when the store cannot be
        // written now: then what is stale is counted below, and with
        // nothing stale (summaries of older rules only) the answer is read
        // from them, as for a store this user may only read.
        var writable: EventStore?
        var failure: Error?
        do {
            writable = try openForMaintenance(path: path)
            if writable == nil && access(path, W_OK) == 0 { return }  // nothing is stale
        } catch {
            failure = error
        }
        if let writable {
            // A redo that fails (a full disk after the mark of older rules
            // was committed) is counted below like a store that could not
            // be opened for it: older summaries still answer.
            do {
                try writable.refreshSummaries()
                return
            } catch {
                failure = error
            }
        }
        guard let reader = try? openExisting(path: path) else { return }
        // Stale 1 with a summary is `redoSummariesOfOlderRules`'s mark (an
        // ingest's stamps are never 1; a new meeting's row starts at 1, but
        // has no summary yet): such a meeting keeps its summary of the
        // older rules, whole (a meeting's three tables are replaced in one
        // transaction), and is answered from it when it cannot be redone
        // (a full disk after the mark was committed had failed every read).
        let stale = try reader.db.prepare("""
            SELECT count(*) FROM meetings m WHERE m.stale != 0
              AND (m.stale != 1 OR NOT EXISTS (SELECT 1 FROM meeting_summary s WHERE s.meeting_id = m.id))
            """)
        let missing = try stale.step() ? stale.int(0) : 0
        guard missing > 0 else { return }
        // Stale meetings that could not be redone: say why. Only a store
        // this user cannot write is `staleSummaries`; one held by an ingest
        // past the busy timeout, or a full disk, is that (it had been
        // reported as a store this user cannot write).
        if let failure, !notWritableHere(failure) { throw failure }
        throw StoreError.staleSummaries(path, missing)
    }

    /// Whether `error` says the store cannot be written by this user here
    /// (a read-only file or folder, a -shm that cannot be made).
    static func notWritableHere(_ error: Error) -> Bool {
        if case StoreError.walNeedsSharedMemory = error { return true }
        guard let e = error as? DatabaseError else { return false }
        return e.primaryCode == DatabaseError.readOnly || e.primaryCode == DatabaseError.cannotOpen || e.primaryCode == DatabaseError.permission
    }

    /// The store opened for writing, when it exists, may be written and has
    /// summaries left stale (or computed by older rules); nil otherwise.
    static func openForMaintenance(path: String) throws -> EventStore? {
        guard access(path, W_OK) == 0 else { return nil }
        let reader = try openExisting(path: path)
        if try reader.summaryRevision() < EventStore.summaryRevision { return try EventStore(path: path) }
        let stale = try reader.db.prepare("SELECT EXISTS (SELECT 1 FROM meetings WHERE stale != 0)")
        guard try stale.step(), stale.int(0) == 1 else { return nil }
        stale.reset()
        return try EventStore(path: path)
    }
}

extension EventStore {
    /// The meeting named by `id`: the meeting itself when it exists, else
    /// the one meeting whose id starts with `id` (ids like 16 hex digits
    /// are long to type). No match is `noMeeting`; several are an error
    /// that lists them.
    public func resolveMeeting(_ id: String) throws -> String {
        let exact = try db.cached("SELECT 1 FROM meetings WHERE meeting = ?")
        exact.bind(1, id)
        let found = try exact.step()
        exact.reset()
        if found || id.isEmpty { return id }
        let prefix = try db.cached("SELECT meeting FROM meetings WHERE substr(meeting, 1, length(?1)) = ?1 ORDER BY meeting LIMIT 6")
        prefix.bind(1, id)
        var matches: [String] = []
        while try prefix.step() { matches.append(prefix.string(0) ?? "") }
        prefix.reset()
        switch matches.count {
        case 0: throw StoreError.noMeeting(id)
        case 1: return matches[0]
        default:
            throw StoreError.ambiguousMeeting(id, matches.prefix(5).map { $0 }, more: matches.count > 5)
        }
    }

    /// The client uid named by `uid` among the clients of `meeting` (of
    /// every meeting when nil), as `resolveMeeting` names meetings: the uid
    /// itself when such a client exists, else the one uid that starts with
    /// it. No match is `noClient` (`noUid` across meetings); several are an
    /// error that lists them.
    /// With `participantsOnly`, only uids of the summaries' participants
    /// count (a client that logged only context events is none): callers
    /// refresh stale summaries first.
    public func resolveUid(_ uid: String, meeting: String?, participantsOnly: Bool = false) throws -> String {
        let table = participantsOnly ? "participant_summary" : "clients"
        let scope = "FROM \(table) c JOIN meetings m ON m.id = c.meeting_id WHERE (?2 IS NULL OR m.meeting = ?2) AND "
        let exact = try db.cached("SELECT 1 \(scope) c.uid = ?1")
        exact.bind(1, uid)
        exact.bind(2, meeting)
        let found = try exact.step()
        exact.reset()
        if found || uid.isEmpty { return uid }
        let prefix = try db.cached(
            "SELECT DISTINCT c.uid \(scope) substr(c.uid, 1, length(?1)) = ?1 ORDER BY c.uid LIMIT 6")
        prefix.bind(1, uid)
        prefix.bind(2, meeting)
        var matches: [String] = []
        while try prefix.step() { matches.append(prefix.string(0) ?? "") }
        prefix.reset()
        switch matches.count {
        case 0:
            if participantsOnly { throw StoreError.noParticipant(meeting: meeting, uid: uid) }
            throw meeting.map { StoreError.noClient(meeting: $0, uid: uid) } ?? StoreError.noUid(uid)
        case 1: return matches[0]
        default:
            throw StoreError.ambiguousUid(uid, meeting: meeting, matches.prefix(5).map { $0 }, more: matches.count > 5)
        }
    }

    /// `uid` among `uids` (one meeting's participants), as `resolveUid`
    /// resolves it in the store: the uid itself, else the one that starts
    /// with it (byte for byte, as SQLite compares), else an error.
    public static func resolveUid(_ uid: String, among uids: [String], meeting: String) throws -> String {
        if uids.contains(where: { $0.utf8.elementsEqual(uid.utf8) }) { return uid }
        var matches = uids.filter { $0.utf8.starts(with: uid.utf8) }
        matches.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        switch matches.count {
        case 0: throw StoreError.noParticipant(meeting: meeting, uid: uid)
        case 1: return matches[0]
        default: throw StoreError.ambiguousUid(uid, meeting: meeting, Array(matches.prefix(5)), more: matches.count > 5)
        }
    }

    /// Whether the store holds any meeting.
    public func isEmpty() throws -> Bool {
        let s = try db.cached("SELECT NOT EXISTS (SELECT 1 FROM meetings)")
        defer { s.reset() }
        return try s.step() && s.int(0) == 1
    }

    /// How many inputs were ingested whole (skipped repeats and changed
    /// files aside): what an empty store's message counts.
    public func ingestedFileCount() throws -> Int {
        let s = try db.cached("SELECT count(*) FROM files WHERE status = 'done'")
        defer { s.reset() }
        return try s.step() ? Int(s.int(0)) : 0
    }
}

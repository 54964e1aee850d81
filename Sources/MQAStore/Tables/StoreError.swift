import MQABase
import MQAModel

/// Store-level failures with messages a user can act on.
public enum StoreError: Error, CustomStringConvertible {
    case noStore(String)
    case noMeeting(String)
    case noClient(meeting: String, uid: String)
    /// No participant of the meeting has this uid or one starting with it
    /// (a client that logged only context events is no participant).
    case noParticipant(meeting: String?, uid: String)
    case noSuchQuery(String, known: [String])
    case noSuchParameter(query: String, parameter: String, known: [String])
    case inconsistent(String)
    case notAStore(String, String)
    /// A store whose schema a later mqa wrote: read as this one's, its
    /// tables would be misread, and a write would mark it older.
    case newerSchema(String, Int)
    /// Commits still in the -wal, which cannot be read without a -shm file
    /// that this user cannot create beside the store.
    case walNeedsSharedMemory(String)
    /// Meetings whose summaries are not up to date, in a store this user
    /// cannot write (so they cannot be redone).
    case staleSummaries(String, Int)
    /// The store could not be made at this path (a full disk, no rights).
    case cannotCreate(String, String)
    case isDirectory(String)
    case ambiguousMeeting(String, [String], more: Bool)
    /// No client has this uid, or a uid starting with it, in any meeting.
    case noUid(String)
    /// A uid prefix that several clients' uids start with (in `meeting`
    /// when it is given).
    case ambiguousUid(String, meeting: String?, [String], more: Bool)
    /// No meeting; `files`: how many inputs were ingested into it all the same.
    case emptyStore(String, files: Int = 0)
    /// No meeting started in [since, until) (ms; nil ends are open).
    case noMeetingInWindow(since: Int64?, until: Int64?)
    /// Another process held the write lock for the whole busy timeout.
    case busy(String)
    /// A chunk that does not decode (a strict read; a lenient one collects these).
    case damaged(StoreDamage)

    public var description: String {
        switch self {
        case .noStore(let path): "no store at \(path) (create one with `mqa ingest FILE...`, or pass --db PATH)"
        case .noMeeting(let id): "no meeting \"\(id)\" in the store (`mqa meetings` lists them)"
        case .noClient(let meeting, let uid): "meeting \"\(meeting)\" has no client \"\(uid)\""
        case .noParticipant(let meeting?, let uid):
            "meeting \"\(meeting)\" has no participant \"\(uid)\" (`mqa report meeting \(meeting)` lists them; "
                + "a client that logged only context events is none)"
        case .noParticipant(nil, let uid):
            "no participant \"\(uid)\" in any meeting of the store (a client that logged only context events is none)"
        case .noSuchQuery(let name, let known): "no query named '\(name)'; known: \(known.joined(separator: ", "))"
        case .noSuchParameter(let query, let parameter, let known):
            "query '\(query)' has no parameter '\(parameter)' (it takes: \(known.isEmpty ? "none" : known.joined(separator: ", ")))"
        case .inconsistent(let what): "store is inconsistent: \(what)"
        case .notAStore(let path, let why): "\(path) is not an mqa store: \(why)"
        case .newerSchema(let path, let version):
            "\(path) was written by a newer mqa (store schema \(version); this mqa reads schema \(EventStore.schemaVersion) and older): use that version"
        case .cannotCreate(let path, let why): "cannot create the store \(path): \(why)"
        case .walNeedsSharedMemory(let path):
            "cannot read \(path) here: its last commits are in \(path)-wal, which SQLite reads only with a \(path)-shm file, "
                + "and this user cannot create one in that folder. Run any mqa command on it once as a user who may write the "
                + "folder (that folds the log into the store), or give this user that right"
        case .staleSummaries(let path, let count):
            "\(count) meeting\(count == 1 ? "" : "s") of \(path) \(count == 1 ? "has" : "have") no up-to-date summary (an ingest was "
                + "interrupted), and this user cannot write the store to redo \(count == 1 ? "it" : "them"): the answer would "
                + "leave \(count == 1 ? "it" : "them") out. Run it once as a user who may write the store, which redoes them"
        case .ambiguousMeeting(let id, let matches, let more):
            "meeting id prefix \"\(id)\" matches \(matches.map { "\"\($0)\"" }.joined(separator: ", "))\(more ? " and more" : ""): give more of the id"
        case .noUid(let uid): "no client \"\(uid)\" in any meeting of the store"
        case .ambiguousUid(let uid, let meeting, let matches, let more):
            "uid prefix \"\(uid)\" matches \(matches.map { "\"\($0)\"" }.joined(separator: ", "))\(more ? " and more" : "")"
                + "\(meeting.map { " in meeting \"\($0)\"" } ?? ""): give more of the uid"
        case .emptyStore(let path, let files) where files > 0:
            // Ingested, yet nothing of a meeting: say why that happens
            // rather than advise an ingest that was already done.
            "the store \(path) holds no meetings: the \(files == 1 ? "file" : "\(files) files") ingested into it gave no event of one "
                + "(a stats dump's connections without media or standard stats are skipped, as `mqa ingest` listed; "
                + "rejected lines are in `mqa query rejects`)"
        case .emptyStore(let path, _):
            "the store \(path) holds no meetings (ingest logs with `mqa ingest --db \(path) FILE...`)"
        case .noMeetingInWindow(let since, let until):
            "no meeting in the store started "
                + (since.map { s in until.map { "in \(Time.iso(s)) … \(Time.iso($0))" } ?? "at or after \(Time.iso(s))" }
                    ?? until.map { "before \(Time.iso($0))" } ?? "in the window")
                + " (--since/--until); nothing was written"
        case .busy(let path): "another mqa ingest is writing \(path); waited 60 s for it: try again when it is done"
        case .isDirectory(let path): "\(path) is a directory, not an mqa store (give the store's file path)"
        case .damaged(let damage): damage.description
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import MQABase
import MQAModel
import MQAStore

/// An ingest that stopped before its last input: the store failed (a full
/// disk, a lost lock, an I/O error) or an input could not be undone alone.
/// It carries what the commits before the failure hold, so that the user is
/// told what is stored, never more; running the ingest again completes it.
public struct IngestFailure: Error, CustomStringConvertible {
    /// The store's path.
    public let store: String
    public let underlying: Error
    /// What the ingest's commits hold.
    public let committed: IngestSummary

    public var description: String {
        guard let error = underlying as? DatabaseError else { return "\(store): \(underlying)" }
        let detail = "SQLite error \(error.code): \(error.message)"
        if error.isPastFileSizeLimit {
            return "\(store): File too large (the file-size limit, ulimit -f, is \(DatabaseError.fileSizeLimit.map(String.init) ?? "?") bytes; \(detail)); what was committed before is stored, and the ingest resumes there when run again"
        }
        if error.isOutOfSpace {
            return "\(store): No space left on device (\(detail)); what was committed before is stored, and the ingest resumes there when run again with room"
        }
        if error.primaryCode == DatabaseError.busy {
            return "another mqa ingest is writing \(store); waited 60 s for it (\(detail)); try again when it is done"
        }
        return "\(store): \(error)"
    }
}

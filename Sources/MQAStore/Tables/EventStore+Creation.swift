import Foundation
import Glibc
import MQAQueries
import MQABase

/// Making a new store: under a temporary name, then linked into place, one
/// creator at a time, clear of what a removed store left at the name.
extension EventStore {
    /// Creates a missing store with its schema under a temporary name and
    /// links it into place: a kill at any moment leaves either no store or
    /// a whole empty one, never a 0-byte file that is no store at all.
    /// When another process creates it first, theirs is used.
    static func createAtomically(_ path: String) throws {
        var st = stat()
        guard lstat(path, &st) != 0, errno == ENOENT else { return }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        // SQLite's `-wal` and `-journal` beside it must be names the folder
        // can hold too (a failed first ingest removes the store through the
        // rollback journal).
        if name.utf8.count > 247 {
            throw StoreError.cannotCreate(path, "its name is \(name.utf8.count) bytes: with \"-journal\" added, longer than the 255 a file name may have")
        }
        let temporary = directory + ".\(TemporaryFiles.nameStem(name)).creating-\(getpid())"
        removeAbandonedCreations(directory: directory, name: name)
        for suffix in EventStore.fileSuffixes { unlink(temporary + suffix) }
        defer { for suffix in EventStore.fileSuffixes { unlink(temporary + suffix) } }
        do {
            // The file is named in any failure: a message about the temporary
            // name, or none, would not say which store could not be made.
            let fresh: Database
            do {
                fresh = try Database(path: temporary, access: .readWrite, pageSize: EventStore.pageSize)
                try fresh.execute(Queries.schema)
            } catch let error as DatabaseError {
                // SQLite says "disk I/O error" for a write the full disk refused.
                throw StoreError.cannotCreate(path, error.isOutOfSpace ? "\(error.message): \(error.hint ?? "")" : error.message)
            }
            // The schema must be in the file itself before the file is linked
            // into place: closing checkpoints too, but a checkpoint that fails
            // there (a full disk) is not reported, and the WAL that held the
            // schema is removed with the temporary name, leaving a store no
            // run could open. Here a failure throws, and nothing is linked.
            do {
                let checkpoint = try fresh.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
                guard try checkpoint.step(), checkpoint.int(0) == 0 else {
                    throw StoreError.cannotCreate(path, "its schema could not be written to the file")
                }
            } catch let error as DatabaseError {
                throw StoreError.cannotCreate(path, error.message)
            }
        }  // closed here: SQLite removes the (empty) WAL
        // One creator of this store at a time, from the look at the name to
        // the link: another's store, linked in and opened after our look,
        // would have its -wal taken for a removed store's and deleted.
        let lock = try CreationLock(directory + ".\(TemporaryFiles.nameStem(name)).creating-lock", store: path)
        defer { lock.release() }
        guard lstat(path, &st) != 0, errno == ENOENT else { return }
        try removeLeftoverCompanions(path)
        if link(temporary, path) != 0 && errno != EEXIST {
            // A file system without hard links (vfat, exFAT, many SMB and
            // FUSE mounts): renamed into place, the store still missing
            // under the creation lock.
            let failure = errno
            guard [EPERM, EOPNOTSUPP, ENOSYS, EMLINK].contains(failure) else {
                throw StoreError.cannotCreate(path, String(cString: strerror(failure)))
            }
            if rename(temporary, path) != 0 {
                throw StoreError.cannotCreate(path, String(cString: strerror(errno)))
            }
        }
    }

    /// An exclusive `flock` on a file of its own beside the store
    /// (`.NAME.creating-lock`), removed by its holder, so it is there only
    /// while a store is being made (or after a kill, until the next
    /// creation). Not the folder: a job that `flock`s its data folder would
    /// wait forever on itself. Another user's lock file is locked read-only;
    /// a link planted at its name is refused. Where no lock file can be made
    /// (a folder this user may not write), the store cannot be either, and
    /// that error says so.
    final class CreationLock {
        private var fd: Int32 = -1
        private let path: String

        init(_ path: String, store: String) throws {
            self.path = path
            // Polled, not blocking: a holder keeps it for a few system calls,
            // so a minute without it is a hung process, not a wait.
            let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
            while true {
                var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
                if fd < 0 && errno == ELOOP {
                    throw StoreError.cannotCreate(store, "\(path) is a symbolic link, not the lock file mqa makes there")
                }
                if fd < 0 && (errno == EACCES || errno == EPERM) {
                    // Another user's lock file (a shared folder): locked
                    // through a read-only descriptor, as flock allows.
                    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
                    if fd < 0 && errno != ENOENT {
                        throw StoreError.cannotCreate(store, "\(path) cannot be opened (\(String(cString: strerror(errno))))")
                    }
                }
                // No lock file can be made (a folder this user may not
                // write, a read-only disk): nor can the store, which says so.
                guard fd >= 0 else { return }
                if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                    // Still the file at that name, not one its last holder
                    // removed after we opened it.
                    var held = stat(), named = stat()
                    if fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino {
                        self.fd = fd
                        return
                    }
                } else if errno != EWOULDBLOCK && errno != EINTR {
                    close(fd)  // no locks here (NFS without them): unlocked
                    return
                }
                close(fd)
                if DispatchTime.now().uptimeNanoseconds > deadline {
                    throw StoreError.cannotCreate(store, "another process held \(path) for a minute while creating it")
                }
                usleep(5_000)
            }
        }

        func release() {
            guard fd >= 0 else { return }
            unlink(path)  // while held: a waiter that opened it retries
            close(fd)
            fd = -1
        }
    }

    /// Removes the `-wal`, `-shm` and `-journal` of a store that is gone
    /// (deleted after a kill, or while an ingest ran): SQLite would replay
    /// the old WAL onto the new store linked in at that name, making it
    /// malformed, or silently bringing back the deleted store's meetings.
    /// A process that still has the removed store open holds a lock on the
    /// `-shm` (SQLite's "dead man switch" byte): then its files are not
    /// leftovers, and the store is not made under them. Called with the
    /// store's creation lock held and the store missing.
    static func removeLeftoverCompanions(_ path: String) throws {
        let names = [path + "-wal", path + "-shm", path + "-journal"]
        var st = stat()
        guard names.contains(where: { lstat($0, &st) == 0 }) else { return }
        if lstat(names[1], &st) == 0 {
            // Asked, not taken: a -shm of another user's opens read-only.
            let shm = open(names[1], O_RDONLY | O_CLOEXEC)
            guard shm >= 0 else {
                throw StoreError.cannotCreate(
                    path, "\(names[1]), left by a removed store, cannot be opened to tell whether it is in use (\(String(cString: strerror(errno))))")
            }
            defer { close(shm) }
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            lock.l_start = 128  // SQLite's unix VFS: UNIX_SHM_DMS
            lock.l_len = 1
            if fcntl(shm, F_GETLK, &lock) != 0 || lock.l_type != Int16(F_UNLCK) {
                throw StoreError.cannotCreate(
                    path, "\(names[0]) and \(names[1]) are in use by a process that still has a removed store of this name open; "
                        + "wait for it to end, or choose another name")
            }
        }
        for name in names where unlink(name) != 0 && errno != ENOENT {
            throw StoreError.cannotCreate(path, "the leftover \(name) of a removed store cannot be removed (\(String(cString: strerror(errno))))")
        }
    }

    /// Removes what a process killed while creating this store left (its
    /// `.NAME.creating-PID` files, up to ~100 KB a set): only those of a
    /// process that no longer runs, so a creation under way is left alone.
    static func removeAbandonedCreations(directory: String, name: String) {
        let prefix = ".\(TemporaryFiles.nameStem(name)).creating-"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else { return }
        for entry in entries where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count)
            let digits = rest.prefix { $0.isNumber }
            guard let pid = pid_t(digits), pid != getpid(),
                  EventStore.fileSuffixes.contains(String(rest.dropFirst(digits.count))) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory + entry) }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Standard input as the process found it.
public enum StandardInput {
    /// Whether descriptor 0 was closed when the process started (`<&-`).
    /// SQLite keeps its files above descriptor 2 by opening /dev/null on a
    /// free one first, so by the time `-` is read, descriptor 0 is that:
    /// an empty input, stored as a file of no lines with exit 0.
    public nonisolated(unsafe) private(set) static var wasClosed = false

    /// Notes whether standard input is open; called first thing in `main`,
    /// before anything opens a file.
    public static func noteAtStart() {
        wasClosed = fcntl(0, F_GETFD) == -1
    }
}

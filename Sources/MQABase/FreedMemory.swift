#if canImport(Glibc)
import Glibc
#endif

/// Gives memory the allocator holds free back to the system.
public enum FreedMemory {
    /// glibc's `malloc_trim`, looked up once: its header is not among the
    /// C modules Swift imports. Nil on another C library.
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// Returns the free pages of every arena to the system. For a process
    /// that runs one phase after another (`mqa demo`): each thread's arena
    /// keeps what a phase freed, so the phases' peaks add up where separate
    /// processes' would not.
    public static func release() {
        _ = trim?(0)
    }

    /// Whether `release` can do anything here.
    public static var isAvailable: Bool { trim != nil }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// How `mqa` meets signals: a file-size limit is an error, and an
/// interrupted or terminated run leaves no temporary file behind.
public enum Signals {
    /// The signals that end a run after removing its temporary files.
    static let fatal: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Call first in `main`, before any other thread starts: the threads
    /// started later inherit the blocked signals, so only the thread started
    /// here receives them.
    public static func install() {
        // Past `ulimit -f` a write then fails with EFBIG ("File too large"),
        // which names the file like any other write error, instead of the
        // default SIGXFSZ killing the process without a word.
        signal(SIGXFSZ, SIG_IGN)
        // Likewise a write to a pipe whose reader left (`mqa export | head`)
        // fails with EPIPE, "Error: standard output: Broken pipe" and exit
        // 1 (not everything asked for was written), instead of SIGPIPE
        // ending the process silently with 141.
        signal(SIGPIPE, SIG_IGN)
        var set = fatalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        // A thread of its own rather than a signal handler: removing files
        // needs a lock and memory, which a handler may not take. A signal
        // ignored when `mqa` started (`nohup`, a background job's SIGINT) is
        // discarded by the kernel and never reaches it.
        Thread {
            var set = fatalSet()
            while true {
                var signo: Int32 = 0
                guard sigwait(&set, &signo) == 0 else { continue }
                TemporaryFiles.removeAllAndDie { die(signo, unblocking: &set) }
            }
        }.start()
    }

    private static func fatalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signo in fatal { sigaddset(&set, signo) }
        return set
    }

    /// Ends the process by `signo` itself, with the default action, so the
    /// parent sees a signal death (a shell shows 128 + signo).
    private static func die(_ signo: Int32, unblocking set: inout sigset_t) -> Never {
        signal(signo, SIG_DFL)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(signo)
        _exit(128 + signo)
    }
}

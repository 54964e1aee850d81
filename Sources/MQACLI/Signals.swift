import Foundation
import MQADomain
#if canImport(Glibc)
import Glibc
#endif

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

    /// Subcommands a file-size limit still kills by SIGXFSZ (exit 153):
    /// the ingest rolls its last commit back without an error when that
    /// commit fails (`Ingester.finishTransaction`), so an EFBIG there would
    /// end in exit 0 over a store without the rolled-back lines. Dying
    /// loudly is better; drop this once that commit's failure is thrown.
    static let killedByFileSizeLimit: Set<String> = ["ingest", "demo"]

    /// Restores SIGXFSZ's default for `subcommand` when it is one of
    /// `killedByFileSizeLimit`, unblocked too: a parent's blocked mask is
    /// inherited (a test runner's worker threads block it), and a blocked
    /// SIGXFSZ does not kill.
    static func prepare(for subcommand: String) {
        guard killedByFileSizeLimit.contains(subcommand) else { return }
        signal(SIGXFSZ, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGXFSZ)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
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

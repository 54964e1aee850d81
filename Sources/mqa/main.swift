import MQACLI
#if canImport(Glibc)
import Glibc
#endif

// First, before any thread: see `Signals.install`.
Signals.install()
exit(CLI.main(Array(CommandLine.arguments.dropFirst())))

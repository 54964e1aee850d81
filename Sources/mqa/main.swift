import MQABase
import MQACLI
#if canImport(Glibc)
import Glibc
#endif

// First, before any thread: see `Signals.install`.
Signals.install()
StandardInput.noteAtStart()
// An argument that is not UTF-8 (a file name in another encoding) would
// reach the commands with U+FFFD in place of its bytes: the name of no file,
// or of another one, which an output then overwrote with exit 0.
for i in 1..<Int(CommandLine.argc) {
    guard let raw = CommandLine.unsafeArgv[i], String(validatingCString: raw) == nil else { continue }
    let shown = String(decoding: UnsafeRawBufferPointer(start: raw, count: strlen(raw)), as: UTF8.self)
    let message = "Error: argument \(i) ('\(shown)') is not UTF-8 text; mqa takes file names and values as UTF-8: rename the file\n"
        + "  See 'mqa --help' or 'mqa help <subcommand>'.\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(64)
}
exit(CLI.main(Array(CommandLine.arguments.dropFirst())))

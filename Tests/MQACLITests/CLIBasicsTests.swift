import Foundation
import Testing

/// The conventions of `Docs/cli.md`: help and version on stdout with exit 0,
/// usage errors on stderr with `Error:`, the usage line and exit 64.
/// (Bare `mqa` is a usage error now: see `CLIPapercutTests`.)
@Suite struct CLIBasicsTests {
    @Test func helpGoesToStdoutWithExitZero() {
        for args in [["--help"], ["-h"], ["help"], ["help", "ingest"], ["ingest", "--help"], ["check", "-h"],
                     ["report", "--help"], ["help", "report", "meeting"]] {
            let r = MQA.run(args)
            #expect(r.status == 0, "mqa \(args): \(r)")
            #expect(r.stdout.contains("USAGE:") || r.stdout.contains("OVERVIEW:"), "mqa \(args): \(r)")
            #expect(r.stderr.isEmpty, "mqa \(args): \(r)")
        }
        #expect(MQA.run(["--help"]).stdout.contains("check"))
    }

    @Test func versionGoesToStdout() {
        let r = MQA.run(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("mqa "))
        #expect(r.stderr.isEmpty)
    }

    @Test(arguments: [
        (["frobnicate"], "unknown subcommand 'frobnicate'"),
        (["ingest"], "missing expected argument"),
        (["ingest", "--bogus", "x"], "unknown option '--bogus'"),
        (["export", "--format"], "missing value for '--format"),
        (["export", "--format", "xml"], "'--format' must be one of"),
        (["check", "--format", "html"], "'--format' must be one of"),
        (["check", "extra"], "unexpected argument 'extra'"),
        (["report", "fleet", "--top", "zero"], "'--top' must be a whole number"),
        (["report", "--all"], "'report' needs a kind"),
        (["help", "nothing"], "unknown subcommand 'nothing'"),
        (["export", "--db", "a", "--db", "b"], "given more than once"),
    ])
    func usageErrorsExit64(args: [String], message: String) {
        let r = MQA.run(args)
        #expect(r.status == 64, "mqa \(args): \(r)")
        #expect(r.stderr.hasPrefix("Error: "), "mqa \(args): \(r)")
        #expect(r.stderr.contains(message), "mqa \(args): \(r)")
        #expect(r.stderr.contains("Usage: ") || r.stderr.contains("See 'mqa --help'"), "mqa \(args): \(r)")
        #expect(r.stdout.isEmpty, "mqa \(args): \(r)")
    }

    @Test func readingCommandsDoNotCreateAStore() {
        let dir = Scratch()
        let db = dir.file("none.sqlite")
        for args in [["export"], ["check"], ["report", "fleet"], ["report", "meeting", "m"]] {
            let r = MQA.run(args + ["--db", db])
            #expect(r.status == 1, "mqa \(args): \(r)")
            #expect(r.stderr.contains("no store at"), "mqa \(args): \(r)")
        }
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func storeFromEnvironment() {
        let dir = Scratch()
        let log = dir.write("a.ndjson", Lines.meeting("m-env"))
        let db = dir.file("env.sqlite")
        #expect(MQA.run(["ingest", log], environment: ["MQA_DB": db]).status == 0)
        let r = MQA.run(["check"], environment: ["MQA_DB": db])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("No damage found"))
    }
}

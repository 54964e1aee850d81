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

    /// A positional read only with another option (FILE... with --merge,
    /// ID left out with --all) is bracketed; a missing one is named alone.
    @Test func optionalPositionalsAreBracketed() {
        #expect(MQA.run(["tune", "--help"]).stdout.contains("[<file...>]"))
        #expect(MQA.run(["report", "meeting", "--help"]).stdout.contains("[<id>]"))
        #expect(MQA.run(["compare", "--help"]).stdout.contains("<a> <b> [<file...>]"))
        let missing = MQA.run(["compare", "--by", "sdkVersion", "5.2.3"])
        #expect(missing.status == 64 && missing.stderr.contains("missing expected argument '<b>'"), "\(missing)")
    }

    /// Errors name the file: a bad config, a --db that is no database.
    @Test func errorsNameTheFile() throws {
        let dir = Scratch()
        let config = dir.file("cfg.json"), text = dir.file("notes.txt")
        try #"{"alphaUp": 0}"#.write(toFile: config, atomically: true, encoding: .utf8)
        try "hello\n".write(toFile: text, atomically: true, encoding: .utf8)
        let bad = MQA.run(["tiers", "--meeting", "m", "--db", dir.file("s.sqlite"), "--config", config])
        #expect(bad.status == 64 && bad.stderr.contains("\(config): config key \"alphaUp\""), "\(bad)")
        let log = dir.file("a.ndjson")
        try "{}\n".write(toFile: log, atomically: true, encoding: .utf8)
        let db = MQA.run(["ingest", "--db", text, log])
        #expect(db.status == 1 && db.stderr.contains("\(text) is not an mqa store"), "\(db)")
    }

    @Test func versionGoesToStdout() {
        let r = MQA.run(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("mqa "))
        #expect(r.stderr.isEmpty)
        let extra = MQA.run(["--version", "extra"])
        #expect(extra.status == 64 && extra.stderr.hasPrefix("Error: unexpected argument 'extra' after --version"), "\(extra)")
        for words in [["--version", "--help"], ["--help", "--version"]] {
            let help = MQA.run(words)
            #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: "), "\(words): \(help)")
        }
    }

    /// After a subcommand, as swift-argument-parser does: the version
    /// (it was "unknown option '--version'", exit 64); help still wins,
    /// and after `--` it is a word like any other.
    @Test func versionAfterASubcommand() {
        for words in [["meetings", "--version"], ["report", "fleet", "--db", "x.sqlite", "--version"], ["ls", "--version"]] {
            let r = MQA.run(words)
            #expect(r.status == 0 && r.stdout == MQA.run(["--version"]).stdout && r.stderr.isEmpty, "\(words): \(r)")
        }
        let help = MQA.run(["export", "--version", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: "), "\(help)")
        let dir = Scratch()
        // As an option's value it is that value, as the parser reads it (a
        // meeting named --version), not the version.
        let value = MQA.run(["tiers", "--db", dir.file("none.sqlite"), "--meeting", "--version"])
        #expect(value.status == 1 && value.stderr.contains("no store"), "\(value)")
        // `--` is never an option's value: `--meeting -- …` lacks one (it
        // ingested FILE under the meeting `--`, and printed the version
        // where help stood after it).
        for words in [["--meeting", "--", "--version", "--help"], ["--meeting", "--", "--help", "x.ndjson"]] {
            let r = MQA.run(["ingest", "--db", dir.file("t.sqlite")] + words)
            #expect(r.status == 64 && r.stderr.contains("missing value for '--meeting"), "\(words): \(r)")
        }
        let literal = MQA.run(["ingest", "--db", dir.file("s.sqlite"), "--", "--version"])
        #expect(literal.status == 1 && literal.stderr.contains("--version: cannot open"), "a file named --version: \(literal)")
    }

    /// A grid, config or partials file that cannot be used is named, with
    /// the reason.
    @Test func unreadableInputFilesSayWhichAndWhy() {
        let dir = Scratch()
        let bad = dir.write("g.json", "{\"thresholds\": [[4.0")
        let grid = MQA.run(["tune", "--db", dir.file("none.sqlite"), "--grid", bad])
        #expect(grid.status == 64 && grid.stderr.contains("Error: \(bad): grid: not valid JSON: unterminated array at byte"), "\(grid)")
        // Valid syntax, a number no double holds: said as such.
        let huge = dir.write("h.json", "{\"thresholds\": [[1e400, 3.0]]}")
        let told = MQA.run(["tune", "--db", dir.file("none.sqlite"), "--grid", huge])
        #expect(told.status == 64 && told.stderr.contains("grid: not valid JSON: number out of range at byte 18"), "\(told)")
        let missing = MQA.run(["report", "meeting", "m", "--db", dir.file("none.sqlite"), "--config", dir.file("c.json")])
        #expect(missing.status == 64 && missing.stderr.contains("cannot read config file '\(dir.file("c.json"))': no such file"),
                "\(missing)")
        let folder = MQA.run(["tune", "--merge", dir.path])
        #expect(folder.status == 64 && folder.stderr.contains("cannot read partials file '\(dir.path)': it is a directory"), "\(folder)")
    }

    @Test(arguments: [
        (["frobnicate"], "unknown subcommand 'frobnicate'"),
        (["ingest"], "missing expected argument"),
        (["ingest", "--bogus", "x"], "unknown option '--bogus'"),
        (["export", "--format"], "missing value for '--format"),
        (["export", "--format", "xml"], "'--format' must be one of"),
        (["check", "--format", "html"], "'--format' must be one of"),
        (["check", "extra"], "unexpected argument 'extra'"),
        (["tiers", "m-7476"], "unexpected argument 'm-7476' (give the meeting with --meeting m-7476)"),
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

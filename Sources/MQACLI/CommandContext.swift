import Foundation
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// What every command needs from its surroundings, so tests can run
/// commands in-process with their own environment.
struct CommandContext {
    var environment: [String: String]
    var stdout: OutputSink
    var stderr: OutputSink
    /// The `--out` files a command opened: `CLI.main` closes them (renaming
    /// each into place) only when the command finished without throwing.
    let outputs = OutputRegistry()

    /// `--db PATH`, else `$MQA_DB`, else `./mqa.sqlite`. The store is always
    /// a file path: an empty value or `:memory:` would store nothing while
    /// reporting success, so both are usage errors.
    func databasePath(_ args: ParsedArguments) throws -> String {
        let (path, source) = args.value(Options.db).map { ($0, "--db") }
            ?? environment["MQA_DB"].map { ($0, "MQA_DB") } ?? ("mqa.sqlite", "")
        if path.isEmpty { throw UsageError("\(source) is empty: give the store's file path") }
        if path == ":memory:" {
            throw UsageError("\(source) ':memory:' would keep nothing: give the store's file path")
        }
        return path
    }

    /// Where results go: `--out FILE`, else (or with `--out -`) stdout. The
    /// file appears only when the command succeeds (see `OutputSink`), and
    /// it may not be the store itself: writing over it would destroy the data.
    func output(_ args: ParsedArguments) throws -> OutputSink {
        guard let path = args.value(Options.out), path != "-" else { return stdout }
        try refuseStore(asOutput: path, args)
        let sink = try OutputSink(path: path)
        outputs.sinks.append(sink)
        return sink
    }

    /// A usage error when `path` is the store or one of its `-wal`/`-shm`
    /// files: the same file (device and inode) or, before they exist, the
    /// same absolute path.
    func refuseStore(asOutput path: String, _ args: ParsedArguments) throws {
        let db = try databasePath(args)
        for suffix in ["", "-wal", "-shm", "-journal"] where FilePaths.same(path, db + suffix) {
            throw UsageError("--out '\(path)' is the store\(suffix.isEmpty ? "" : " (its \(suffix.dropFirst()) file)"); writing there would destroy it")
        }
    }

    /// An existing store: reading commands must not create an empty one.
    /// With `requireMeetings`, a store without meetings is an error too:
    /// a fleet ranking or a tuning sweep of nothing would look like an
    /// answer (every config at F1 0).
    func openStore(_ args: ParsedArguments, requireMeetings: Bool = false) throws -> EventStore {
        let path = try databasePath(args)
        let store = try EventStore.openExisting(path: path)
        if requireMeetings, try store.isEmpty() { throw StoreError.emptyStore(path) }
        return store
    }

    /// `--config FILE` parsed over the defaults; a bad file is a usage error
    /// (exit 64) naming the key.
    func tierConfig(_ args: ParsedArguments) throws -> TierConfig {
        guard let path = args.value(Options.config) else { return TierConfig() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("cannot read config file '\(path)'")
        }
        return try TierConfig.parse(data)
    }

    /// `--since`/`--until` as a half-open window [since, until) of meeting
    /// start times, ms; nil ends are open.
    func timeWindow(_ args: ParsedArguments) throws -> (since: Int64?, until: Int64?) {
        let window = (since: args.value(Options.since), until: args.value(Options.until))
        // An empty or swapped window selects nothing by construction: a
        // mistake, never a request for an empty report (or an empty site).
        if let since = window.since, let until = window.until, since >= until {
            throw UsageError("'--since' (\(Time.iso(since))) must be before '--until' (\(Time.iso(until)))")
        }
        return window
    }

    static func inWindow(_ start: Int64?, _ window: (since: Int64?, until: Int64?)) -> Bool {
        if window.since == nil && window.until == nil { return true }
        guard let start else { return false }
        if let since = window.since, start < since { return false }
        if let until = window.until, start >= until { return false }
        return true
    }
}

/// The options many commands share, declared once (the commands that take
/// them list them in their `CommandSpec`).
enum Options {
    static let db = Option<String>.path(
        "--db", value: "PATH", help: "The store.", defaultText: "$MQA_DB, else ./mqa.sqlite")
    static let out = Option<String>.path(
        "-o", "--out", value: "FILE", help: "Write to FILE instead of standard output (- is standard output).")
    static let config = Option<String>.path(
        "--config", value: "FILE", help: "Tier config JSON (any subset of keys; see Docs/tiers.md).",
        defaultText: "the spec's defaults")
    static let since = Option<Int64>.time(
        "--since", help: "Only meetings that started at or after TIME (RFC 3339, or a date: 2026-11-29).")
    static let until = Option<Int64>.time("--until", help: "Only meetings that started before TIME.")

    /// `-f, --format`, among `words`: told by the extension of `--out` when absent.
    static func format(_ words: [String], default value: String = "md", help: String = "The output format.") -> Option<String> {
        Option<String>.choice("-f", "--format", help: help, words, default: value, followsOut: true)
    }
}

extension Option where Value == Int64 {
    /// A time as ms since the epoch: RFC 3339, or a date (midnight UTC).
    static func time(_ names: String..., value: String = "TIME", help: String) -> Option {
        let spec = OptionSpec(names: names, valueName: value, help: help) { text in
            guard let ms = Time.parse(text) else {
                throw InvalidValue(reason: "must be an RFC 3339 time or a date (2026-11-29T10:00:00Z, 2026-11-29)")
            }
            return ms
        }
        return Option(spec: spec, read: { $0.last as! Int64 })
    }
}

/// The file sinks a command opened, closed by `CLI.main` on success.
final class OutputRegistry {
    var sinks: [OutputSink] = []
}

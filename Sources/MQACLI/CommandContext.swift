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
        let (path, source) = args.value("--db").map { ($0, "--db") }
            ?? environment["MQA_DB"].map { ($0, "MQA_DB") } ?? ("mqa.sqlite", "")
        if path.isEmpty { throw UsageError("\(source) is empty: give the store's file path") }
        if path == ":memory:" {
            throw UsageError("\(source) ':memory:' would keep nothing: give the store's file path")
        }
        return path
    }

    /// Where results go: `--out FILE`, else stdout. The file appears only
    /// when the command succeeds (see `OutputSink`), and it may not be the
    /// store itself: writing over it would destroy the data.
    func output(_ args: ParsedArguments) throws -> OutputSink {
        guard let path = args.value("--out") else { return stdout }
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
        guard let path = args.value("--config") else { return TierConfig() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("cannot read config file '\(path)'")
        }
        return try TierConfig.parse(data)
    }

    /// `--format`, with `md` as the default.
    func format(_ args: ParsedArguments, _ allowed: [String], usage: String) throws -> String {
        try args.choice("--format", allowed, default: "md", usage: usage)
    }

    /// `--since`/`--until` as a half-open window [since, until) of meeting
    /// start times, ms; nil ends are open.
    func timeWindow(_ args: ParsedArguments) throws -> (since: Int64?, until: Int64?) {
        func parse(_ name: String) throws -> Int64? {
            guard let text = args.value(name) else { return nil }
            guard let ms = Time.parse(text) else {
                throw UsageError("'\(name)' must be an RFC 3339 time or a date (2026-11-29T10:00:00Z, 2026-11-29), got '\(text)'")
            }
            return ms
        }
        let window = (since: try parse("--since"), until: try parse("--until"))
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

    static let sinceOption = OptionSpec.option(
        "--since", value: "TIME", help: "Only meetings that started at or after TIME (RFC 3339, or a date: 2026-11-29).")
    static let untilOption = OptionSpec.option("--until", value: "TIME", help: "Only meetings that started before TIME.")

    static let dbOption = OptionSpec.option(
        "--db", value: "PATH", help: "The store (default: $MQA_DB, else ./mqa.sqlite).")
    static let outOption = OptionSpec.option("--out", value: "FILE", help: "Write to FILE instead of standard output.")
    static let configOption = OptionSpec.option(
        "--config", value: "FILE", help: "Tier config JSON (any subset of keys; see Docs/tiers.md). Default: the spec's defaults.")
}

/// The file sinks a command opened, closed by `CLI.main` on success.
final class OutputRegistry {
    var sinks: [OutputSink] = []
}

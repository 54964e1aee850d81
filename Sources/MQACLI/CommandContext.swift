import Foundation
import MQADomain

/// What every command needs from its surroundings, so tests can run
/// commands in-process with their own environment.
struct CommandContext {
    var environment: [String: String]
    var stdout: OutputSink
    var stderr: OutputSink

    /// `--db PATH`, else `$MQA_DB`, else `./mqa.sqlite`.
    func databasePath(_ args: ParsedArguments) -> String {
        args.value("--db") ?? environment["MQA_DB"] ?? "mqa.sqlite"
    }

    /// Where results go: `--out FILE`, else stdout.
    func output(_ args: ParsedArguments) throws -> OutputSink {
        guard let path = args.value("--out") else { return stdout }
        return try OutputSink(path: path)
    }

    /// An existing store: reading commands must not create an empty one.
    func openStore(_ args: ParsedArguments) throws -> EventStore {
        try EventStore.openExisting(path: databasePath(args))
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

    static let dbOption = OptionSpec.option(
        "--db", value: "PATH", help: "The store (default: $MQA_DB, else ./mqa.sqlite).")
    static let outOption = OptionSpec.option("--out", value: "FILE", help: "Write to FILE instead of standard output.")
    static let configOption = OptionSpec.option(
        "--config", value: "FILE", help: "Tier config JSON (any subset of keys; see Docs/tiers.md). Default: the spec's defaults.")
}

import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa check`
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Verify the store: the SQLite file, then every compressed chunk.",
        discussion: """
            Runs SQLite's integrity_check and foreign_key_check, then decodes every
            report and event chunk (CRC-32, zstd, columns) and compares each row's
            count, first_ts and last_ts with the decoded data. Every damaged chunk
            is listed with its meeting, client (uid), table, chunk id and reason.
            Reads only; the store is not changed.

            Exit status: 0 the store is sound, 1 damage found (or no store), 64 usage.
            """,
        options: [Options.db, format, Options.out],
        examples: [
            ("Verify the SQLite file and every compressed chunk", "mqa check --db calls.sqlite"),
        ])

    static let format = Options.format(["md", "json", "csv"])

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: String = try args.get(Self.format)
        let path = try context.databasePath(args)
        let result: StoreCheckResult
        do {
            result = try context.openStore(args).check()
        } catch let error as StoreError {
            throw error
        } catch {
            // Not even openable as SQLite (a text file, a truncated header):
            // that is damage too, reported in the same shape.
            var r = StoreCheckResult()
            r.integrity = ["\(error)"]
            r.damage = [StoreDamage(place: .file, reason: "cannot open: \(error)")]
            result = r
        }
        let out = try context.output(args)
        out.write(CheckReport(result, path: path).render(ReportFormat(rawValue: format) ?? .md))
        out.flush()
        if !result.isClean {
            context.stderr.write(
                "Error: \(result.damage.count) problem\(result.damage.count == 1 ? "" : "s") found in \(path)\n")
            return ExitCode.failure
        }
        return ExitCode.success
    }
}

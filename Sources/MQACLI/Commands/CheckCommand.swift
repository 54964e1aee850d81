import MQADomain

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
        options: [
            CommandContext.dbOption,
            .option("--format", value: "FORMAT", help: "md (default) or json."),
            CommandContext.outOption,
        ])

    static let command = Subcommand(spec: spec, run: run)

    /// Damaged chunks listed in the md output before "… and N more".
    static let shownDamage = 1000

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format = try args.choice("--format", ["md", "json"], default: "md", usage: spec.usage)
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
        if format == "json" {
            out.write(result.json.rendered(pretty: true) + "\n")
        } else {
            out.write(markdown(result, path: path))
        }
        out.flush()
        if !result.isClean {
            context.stderr.write(
                "Error: \(result.damage.count) problem\(result.damage.count == 1 ? "" : "s") found in \(path)\n")
            return ExitCode.failure
        }
        return ExitCode.success
    }

    static func markdown(_ r: StoreCheckResult, path: String) -> String {
        var text = "# Store check: \(Markdown.escape(path))\n\n"
        text += "- SQLite integrity_check: \(r.integrity == ["ok"] ? "ok" : "FAILED (\(r.integrity.count) messages)")\n"
        text += "- report chunks: \(r.reportChunks) (\(r.reports) quality reports)\n"
        text += "- event chunks: \(r.eventChunks) (\(r.events) events)\n"
        if r.isClean {
            text += "\nNo damage found.\n"
            return text
        }
        text += "\n## Damage (\(r.damage.count))\n\n"
        var table = MarkdownTable(headers: ["meeting", "uid", "table", "chunk", "reason"])
        for d in r.damage.prefix(shownDamage) {
            // Ids come from logs: `<` and `>` escaped, as in the reports.
            table.add([d.meeting, d.uid, d.table, d.chunk.map { String($0) } ?? "—", d.reason])
        }
        text += table.rendered
        if r.damage.count > shownDamage {
            text += "\n… and \(r.damage.count - shownDamage) more (`--format json` lists all)\n"
        }
        return text
    }
}

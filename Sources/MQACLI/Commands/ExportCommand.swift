import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa export`
enum ExportCommand {
    static let spec = CommandSpec(
        name: "export",
        abstract: "Write the stored events back as event-log lines.",
        discussion: """
            Lines are ordered by meeting, uid and ts; quality reports are decoded from
            their compressed chunks with the values they were logged with, in normalized
            spelling (0.40 as 0.4, 1e3 as 1000; a value of more digits than a 64-bit
            decimal as its double's shortest digits). Ingesting the export into an empty
            store gives the same store (and the same export).
            """,
        options: [Options.db, meeting, format, Options.out],
        examples: [
            ("One meeting's events back as event-log lines", "mqa export --meeting m-7476 -o m-7476.ndjson"),
        ])

    static let meeting = Option<String>.string("--meeting", value: "ID", help: "Only this meeting.", validate: Options.nonEmptyId)
    static let format = Options.format(["ndjson", "csv"], default: "ndjson")

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: String = try args.get(Self.format)
        let store = try context.openStore(args)
        let out = try context.output(args)
        let meeting = try args.value(Self.meeting).map { try store.resolveMeeting($0) }
        try Exporter(store: store).export(meeting: meeting, format: Exporter.Format(rawValue: format)!, to: out)
        return ExitCode.success
    }
}

import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa meetings` (alias `mqa ls`)
enum MeetingsCommand {
    static let spec = CommandSpec(
        name: "meetings",
        abstract: "List the stored meetings, newest first: start, duration, participants, score.",
        discussion: """
            Reads the summary tables that ingest keeps (nothing is decoded), so it is
            instant on any store. The score is the fleet ranking's (see `mqa report
            fleet`): higher is worse. Any unique prefix of an id works wherever a
            meeting id is expected (`mqa report meeting 3f2a`).
            """,
        options: [Options.db, Options.since, Options.until, top, format, Options.out])

    static let top = Option<Int>.integer(
        "-n", "--top", value: "N", help: "Only the N newest meetings.", range: 1...Int(Int32.max), defaultText: "all")
    static let format = Options.format(["md", "json", "csv"])

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: String = try args.get(Self.format)
        let top = args.value(Self.top) ?? Int.max
        let window = try context.timeWindow(args)
        let path = try context.databasePath(args)
        try EventStore.refreshStaleSummaries(path: path)
        let store = try context.openStore(args, requireMeetings: true)
        var entries: [FleetEntry] = []
        for row in try store.meetingSummaries() where CommandContext.inWindow(row.header.start, window) {
            entries.append(FleetEntry(header: row.header, stalledMs: row.stalledMs, lowTierMs: row.lowTierMs,
                                      abnormalDisconnects: row.abnormalDisconnects))
        }
        entries.sort { ($0.header.start ?? Int64.min, $1.header.meeting) > ($1.header.start ?? Int64.min, $0.header.meeting) }
        if entries.count > top { entries.removeLast(entries.count - top) }
        let out = try context.output(args)
        out.write(MeetingListReport(entries).render(ReportFormat(rawValue: format) ?? .md))
        return ExitCode.success
    }
}

import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa report fleet [--top N]`
enum ReportFleetCommand {
    static let spec = CommandSpec(
        name: "report fleet",
        abstract: "All meetings ranked worst first, with counts of each issue code.",
        discussion: "Score = " + FleetReport.scoreRule + ".",
        options: [Options.db, Options.config, top, Options.since, Options.until, Options.tz, ReportOptions.format, Options.out],
        examples: [
            ("The ten worst meetings of the last 24 hours", "mqa report fleet --since -1d -n 10"),
            ("The whole ranking as CSV", "mqa report fleet -o fleet.csv"),
        ])

    static let top = Option<Int>.integer(
        "-n", "--top", value: "N", help: "Show only the N worst meetings.", range: 1...Int(Int32.max), defaultText: "all")

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: ReportFormat = try args.get(ReportOptions.format)
        let top = args.value(Self.top)
        let config = try context.tierConfig(args)
        let display = TimeDisplay(zone: try context.zone(args))
        let window = try context.timeWindow(args)
        let store = try context.openStore(args, requireMeetings: true)
        // Ranked as they come: with --top only the worst are held.
        var ranking = FleetRanking(top: top)
        let ids = try store.meetings(startingIn: window)
        // As every report with a window: an empty one is said, not printed.
        if ids.isEmpty && (window.since != nil || window.until != nil) {
            throw StoreError.noMeetingInWindow(since: window.since, until: window.until)
        }
        let progress = ProgressBar.onTerminal(context)
        // Cleared however the loop ends: an error gets a line of its own.
        defer { progress?.finish() }
        // The ranking needs the header, the analysis (no tier histories)
        // and the client mix only.
        try FleetAnalysis.forEach(ids, store: store, config: config, context, progress: progress) { ranking.add($0) }
        progress?.finish()
        var report = FleetReport(ranking)
        report.display = display
        report.config = config
        try ReportOptions.emit(report, format, args, context)
        return ExitCode.success
    }
}

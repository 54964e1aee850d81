import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// `mqa report trends [--by FIELD] [--every day|week]`
enum ReportTrendsCommand {
    static let spec = CommandSpec(
        name: "report trends",
        abstract: "The fleet's cohort figures per day or week, with 95 % intervals (html: a chart).",
        discussion: """
            Buckets meetings by their start (UTC days, or weeks from Monday) and gives each
            period the figures of 'mqa report cohorts': stall rate, time at poor/bad, MOS,
            abnormal disconnects, first frame, each rate with its 95 % interval. With --by,
            one row per period and value (html: one line per value, the six with the most
            participants). A period with too little data is marked so.
            """ + "\n\n" + CohortOptions.methodHelp + "\n\n" + CohortOptions.partialsHelp,
        arguments: [("FILE...", "With --merge: partials files written by --partials.")],
        maxPositionals: nil,
        options: [Options.db, Options.config, CohortOptions.optionalBy, every, Options.since, Options.until, Options.tzForPeriods, ReportOptions.format, Options.out,
                  CohortOptions.seed, CohortOptions.replicates, CohortOptions.partials, CohortOptions.merge],
        examples: [
            ("The fleet's figures per week, as a page with a chart", "mqa report trends --every week -o trends.html"),
            ("Per day and network type, in the zone's calendar", "mqa report trends --by netType --tz Asia/Kolkata"),
        ])

    static let every = Option<TrendPeriod>.choice(
        "--every", value: "PERIOD", help: "The period.", TrendPeriod.allCases.map { ($0.rawValue, $0) },
        default: .day, defaultText: "day")

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        if args.isGiven(every), try args.get(CohortOptions.partials) {
            throw UsageError("'--every' does not go with --partials: the partials keep each meeting's start; give it to --merge")
        }
        if let written = try CohortOptions.writePartials(args, context) { return written }
        let format: ReportFormat = try args.get(ReportOptions.format)
        let field = args.value(CohortOptions.optionalBy)
        let source = try CohortOptions.summedMeetings(args, context, by: field)
        var report = TrendsReport(TrendTable(source.meetings, every: try args.get(every), by: field,
                                             options: try CohortOptions.bootstrap(args), zone: try context.zone(args)))
        report.config = source.config
        try ReportOptions.emit(report, format, args, context)
        return ExitCode.success
    }
}

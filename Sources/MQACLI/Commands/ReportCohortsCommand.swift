import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// `mqa report cohorts --by FIELD`
enum ReportCohortsCommand {
    static let spec = CommandSpec(
        name: "report cohorts",
        abstract: "Per value of a client field: stall rate, time at poor/bad, MOS, disconnects, with 95 % intervals.",
        discussion: """
            Per value of --by (platform, osVersion, sdkVersion, appVersion, device, netType
            or engine): participants, meetings, watched and stalled video time, stall rate
            (stalled / watched), share of warm time at poor/bad, median MOS, share of
            participants with an abnormal disconnect, first-frame p90, and the share of
            video subscriptions that never rendered. Values with enough data come first,
            worst stall rate first (a value whose video never rendered at all first of
            all); a value seen in fewer than 5 meetings
            or by fewer than 10 participants is marked as having too little data and listed
            after them. Participants without the field are shown as unknown. Each figure
            counts under the value that held when it was measured (the last join naming
            the field, or for netType the last network_change, before it; unknown until
            one names it): a participant who changed network, or rejoined from another
            device or SDK, counts under each.
            """ + "\n\n" + CohortOptions.methodHelp + "\n\n" + CohortOptions.partialsHelp,
        arguments: [("FILE...", "With --merge: partials files written by --partials.")],
        maxPositionals: nil,
        options: [Options.db, Options.config, CohortOptions.partialsBy, Options.since, Options.until, Options.tzForTypedTimes, ReportOptions.format, Options.out,
                  CohortOptions.seed, CohortOptions.replicates, CohortOptions.partials, CohortOptions.merge],
        examples: [
            ("Stall rate, poor/bad time and MOS per SDK version", "mqa report cohorts --by sdkVersion"),
            ("Per network type, over November", "mqa report cohorts --by netType --since 2026-11-01 --until 2026-12-01 -f json"),
        ])

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        if let written = try CohortOptions.writePartials(args, context) { return written }
        let format: ReportFormat = try args.get(ReportOptions.format)
        guard let field = args.value(CohortOptions.partialsBy) else {
            throw UsageError("missing '\(CohortOptions.partialsBy.spec.synopsis)'")
        }
        let options = try CohortOptions.bootstrap(args)
        let source = try CohortOptions.summedMeetings(args, context, by: field)
        var report = CohortsReport(CohortTable(source.meetings, by: field, options: options))
        report.config = source.config
        try ReportOptions.emit(report, format, args, context)
        return ExitCode.success
    }
}

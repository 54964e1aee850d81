import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// What the three `report` subcommands share: options and format (the
/// config is `CommandContext.tierConfig`, as for `tiers`).
enum ReportOptions {
    static let format = Option<ReportFormat>.choice(
        "-f", "--format", help: "The output format (html: one self-contained page).",
        ReportFormat.allCases.map { ($0.rawValue, $0) }, default: .md, defaultText: "md", followsOut: true)

    /// One meeting's report, or the store's "no such meeting" error; its
    /// times written in the command's zone (`--tz`, `MQA_TZ`).
    static func meetingReport(_ store: EventStore, _ id: String, config: TierConfig, display: TimeDisplay,
                              _ context: CommandContext) throws -> MeetingReport {
        let log = try meetingLog(store, id, context)
        var report = MeetingReport(log: log, config: config)
        report.display = display
        report.connections = try store.connectionFigures(meeting: log.meeting)
        return report
    }

    /// A meeting's log, read leniently: a damaged chunk is left out, named
    /// on stderr and in the report (`MeetingReport.damage`), and the rest is
    /// shown. `mqa check` lists every damaged chunk; `mqa export` stays strict.
    /// `progress`: a bar on the terminal, cleared before a warning so
    /// that the warning has a line of its own (the next update redraws it).
    static func meetingLog(_ store: EventStore, _ id: String, _ context: CommandContext,
                           progress: ProgressBar? = nil) throws -> MeetingLog {
        let id = try store.resolveMeeting(id)
        guard let log = try store.meetingLog(id, lenient: true) else { throw StoreError.noMeeting(id) }
        if !log.damage.isEmpty { progress?.finish() }
        for d in log.damage { context.stderr.write("Warning: \(TerminalText.escaped(d.description)); left out of the report\n") }
        return log
    }

    /// Writes `report` in `format` to `--out` or standard output (a report
    /// may stream itself: `RenderedReport.write`).
    static func emit(_ report: some RenderedReport, _ format: ReportFormat, _ args: ParsedArguments,
                     _ context: CommandContext) throws {
        let out = try context.output(args)
        report.write(format, to: out)
        out.flush()
    }

    static func emit(_ text: String, _ args: ParsedArguments, _ context: CommandContext) throws {
        let out = try context.output(args)
        out.write(text)
        out.flush()
    }
}

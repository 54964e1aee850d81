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
    /// times written in the command's zone (`--tz`, `MQA_TZ`). A meeting
    /// of more than `EventStore.heldReportLimit` reports is read one
    /// client at a time (`MeetingReport(stored:in:config:)`: a 2,000-viewer
    /// hour read whole took 510 MB), a smaller one whole: read a client at
    /// a time, its reports are decoded three or four times, 7 % more
    /// instructions for a small meeting's page. A damaged chunk falls back
    /// to the lenient whole read (`meetingLog`), which leaves it out with a
    /// warning. Make and write it within `EventStore.inSnapshot`.
    static func meetingReport(_ store: EventStore, _ id: String, config: TierConfig, display: TimeDisplay,
                              _ context: CommandContext, progress: ProgressBar? = nil) throws -> MeetingReport {
        let meeting = try store.resolveMeeting(id)
        func whole() throws -> MeetingReport {
            MeetingReport(log: try meetingLog(store, id, context, progress: progress), config: config)
        }
        var report: MeetingReport
        if try store.storedReportCount(meeting: meeting) > EventStore.heldReportLimit {
            do {
                report = try MeetingReport(stored: meeting, in: store, config: config)
            } catch StoreError.damaged {
                report = try whole()
            }
        } else {
            report = try whole()
        }
        report.display = display
        report.connections = try store.connectionFigures(meeting: report.header.meeting)
        return report
    }

    /// A meeting analysed for what needs its analysis but not its reports
    /// afterwards (a track report, a fleet entry): the clients are read
    /// one at a time (`EventStore.analyzeMeeting`, no tier histories), so
    /// a 2,000-viewer hour is never held whole (read whole, a track report
    /// of it took 900 MB and a fleet entry 270 MB). A damaged chunk falls
    /// back to the lenient whole read (`meetingLog`), which leaves it out
    /// with a warning. `id` is a stored meeting id.
    static func analysedMeeting(_ store: EventStore, _ id: String, config: TierConfig, _ context: CommandContext,
                                progress: ProgressBar? = nil) throws -> AnalysedMeeting {
        do {
            guard let (log, analysis) = try store.analyzeMeeting(id, config: config, keepingTimelines: false) else {
                throw StoreError.noMeeting(id)
            }
            return AnalysedMeeting(log: log, analysis: analysis, lastReports: try store.lastReportTimes(meeting: id))
        } catch StoreError.damaged {
            let log = try meetingLog(store, id, context, progress: progress)
            return AnalysedMeeting(log: log, analysis: MeetingAnalysis.analyze(log, config: config, keepingTimelines: false),
                                   lastReports: nil)
        }
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

/// What `ReportOptions.analysedMeeting` read: the log (without its reports,
/// unless a damaged chunk made it read whole), the analysis, and each
/// client's last report time where the log lacks the reports.
struct AnalysedMeeting {
    var log: MeetingLog
    var analysis: MeetingAnalysis
    var lastReports: [String: Int64]?

    /// As `MeetingHeader(log)` reads a whole log: the span is the
    /// analysis's, over events and reports alike.
    var header: MeetingHeader { MeetingHeader(log, span: analysis.span) }

    /// As `FleetClientMix(log)` reads a whole log: each client's joins up
    /// to its last report (`ClientInfo`).
    var clientMix: FleetClientMix {
        FleetClientMix(log.clients.map { c in
            ParticipantContext.ClientInfo(c, lastReport: lastReports.map { $0[c.uid] } ?? c.reports.ts.last)
        })
    }
}

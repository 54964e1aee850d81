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
            fleet`): higher is worse. Under a --config other than the defaults, each
            meeting listed is analysed again for its score, as the fleet ranking does.
            Any unique prefix of an id works wherever a meeting id is expected (`mqa
            report meeting 3f2a`).

            Find a person's bad moment: `mqa meetings --uid alice --at 14:05 --tz
            Europe/Berlin` lists alice's meetings that were running at 14:05 Berlin
            time on their own date, any day, newest first (a meeting runs from its
            first to its last event: start ≤ T ≤ end; add --since yesterday for the
            last two days); then `mqa report meeting ID --uid alice --at 14:05` opens
            with her incidents, the nearest to 14:05 first. A full time
            (2026-11-29T14:05) or a relative one (-2h) is one instant.
            """,
        options: [Options.db, Options.config, uid, at, Options.since, Options.until, Options.tz, top, format, Options.out],
        examples: [
            ("alice's meetings, newest first", "mqa meetings --uid alice"),
            ("Meetings running at 14:05 local time, whatever the day", "mqa meetings --at 14:05 --tz America/New_York"),
        ])

    static let top = Option<Int>.integer(
        "-n", "--top", value: "N", help: "Only the N newest meetings.", range: 1...Int(Int32.max), defaultText: "all")
    static let format = Options.format(["md", "json", "csv"])
    static let uid = Option<String>.string(
        "--uid", value: "U", help: "Only meetings this participant was in (a uid, or a unique prefix of one).",
        validate: Options.nonEmptyId)
    static let at = Option<TimeInput>.time(
        "--at", help: "Only meetings running at TIME (start ≤ TIME ≤ end; a time of day on each meeting's date, in --tz).")

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: String = try args.get(Self.format)
        let config = try context.tierConfig(args)
        let top = args.value(Self.top) ?? Int.max
        let window = try context.timeWindow(args)
        let zone = try context.zone(args)
        // A time of day is the meeting's own: matched on each one's date.
        let atInput = args.value(Self.at)
        let now = atInput == nil ? 0 : try context.now()
        let at = atInput?.isTimeOfDay == true ? nil : atInput?.resolve(zone: zone, now: now)
        let path = try context.databasePath(args)
        try EventStore.refreshStaleSummaries(path: path)
        let store = try context.openStore(args, requireMeetings: true)
        var keep: Set<String>?
        var uid: String?
        if let typed = args.value(Self.uid) {
            // Participants only: a client that logged only context events
            // (a device change) took part in no meeting.
            let resolved = try store.resolveUid(typed, meeting: nil, participantsOnly: true)
            uid = resolved
            keep = Set(try store.meetings(withUid: resolved, participantsOnly: true))
        }
        if let atInput {
            let running = Set(try store.meetings { span in at ?? atInput.resolve(zone: zone, now: now, near: span) })
            keep = keep.map { $0.intersection(running) } ?? running
        }
        var entries: [FleetEntry] = []
        for row in try store.meetingSummaries() where CommandContext.inWindow(row.header.start, window) {
            if let keep, !keep.contains(row.header.meeting) { continue }
            entries.append(FleetEntry(header: row.header, stalledMs: row.stalledMs, lowTierMs: row.lowTierMs,
                                      abnormalDisconnects: row.abnormalDisconnects))
        }
        entries.sort { ($0.header.start ?? Int64.min, $1.header.meeting) > ($1.header.start ?? Int64.min, $0.header.meeting) }
        if entries.count > top { entries.removeLast(entries.count - top) }
        if !config.changedKeys.isEmpty {
            // The summaries' figures are the defaults'; the order is by
            // start, so only the listed meetings need their analysis.
            let progress = ProgressBar.onTerminal(context)
            // Cleared however the loop ends: an error gets a line of its own.
            defer { progress?.finish() }
            entries = try entries.enumerated().map { i, e in
                progress?.update(count: i, total: entries.count, noun: "meetings analysed under --config")
                let m = try ReportOptions.analysedMeeting(store, e.header.meeting, config: config, context, progress: progress)
                return FleetEntry(header: e.header, analysis: m.analysis)
            }
        }
        var report = MeetingListReport(entries)
        report.display = TimeDisplay(zone: zone)
        report.filter = MeetingListReport.Filter(uid: uid, at: at, timeOfDay: atInput?.clockText)
        report.config = config
        let out = try context.output(args)
        out.write(report.render(ReportFormat(rawValue: format) ?? .md))
        return ExitCode.success
    }
}

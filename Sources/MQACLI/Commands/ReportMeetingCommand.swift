import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa report meeting ID` / `mqa report meeting --all --out DIR`
enum ReportMeetingCommand {
    static let spec = CommandSpec(
        name: "report meeting",
        abstract: "Per-meeting report: participants, quality, tiers, tracks, stalls, issues.",
        discussion: """
            With --uid U the report opens with that participant's incidents (U may be a
            unique prefix of a uid in the meeting); with --at T too, the incidents
            nearest to T come first. T is any time form of --since; a time of day
            (14:05) is on the meeting's date, in the --tz zone.

            With --all, writes one report per meeting into the directory given by --out,
            plus an index (index.md, index.html, ...) ranking them worst first and linking
            each file. File names are made safe from the meeting ids (only [A-Za-z0-9._-]
            and a hash suffix); nothing is written outside the directory, and symbolic
            links inside it are not followed.
            """,
        arguments: [("ID", "The meeting id (omit with --all).")],
        maxPositionals: 1,
        options: [Options.db, Options.config, ReportOptions.format, out, uid, at, Options.tz, all, Options.since, Options.until],
        examples: [
            ("Find alice's bad moment: her incidents around 14:05 first", "mqa report meeting m-7476 --uid alice --at 14:05 --tz Europe/Berlin"),
            ("One meeting as a page to open in a browser", "mqa report meeting m-7476 -o m-7476.html"),
            ("Every meeting of a day as a linked site", "mqa report meeting --all --since 2026-11-29 --until 2026-11-30 -f html -o site"),
        ])

    static let out = Option<String>.path(
        "-o", "--out", value: "PATH", help: "Write to this file (with --all: into this directory); - is standard output.")
    static let all = Option<Bool>.flag("--all", help: "Every meeting in the store, one file each, into --out DIR.")
    static let uid = Option<String>.string(
        "--uid", value: "U", help: "Open with this participant's incidents (a uid, or a unique prefix of one; md, html, json).",
        validate: Options.nonEmptyId)
    static let at = Option<TimeInput>.time(
        "--at", help: "With --uid: the incidents nearest to TIME first (14:05 is on the meeting's date).")

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: ReportFormat = try args.get(ReportOptions.format)
        let config = try context.tierConfig(args)
        let display = TimeDisplay(zone: try context.zone(args))
        if args.isGiven(Self.at) && !args.isGiven(Self.uid) { throw UsageError("--at needs --uid: whose incidents to put first") }
        // The CSV is the report's tables, with no incidents to open with.
        if args.isGiven(Self.uid) && format == .csv {
            throw UsageError("--uid opens the report with a participant's incidents, which csv does not hold: use --format md, html or json")
        }
        if try args.get(Self.all) {
            guard args.positionals.isEmpty else { throw UsageError("give either a meeting ID or --all, not both") }
            if args.isGiven(Self.uid) { throw UsageError("--uid takes one meeting: give its ID instead of --all") }
            guard let dir = args.value(Self.out) else { throw UsageError("--all needs --out DIR") }
            // Many files: standard output cannot hold them.
            if dir == "-" { throw UsageError("--all needs --out DIR, a folder; '-' (standard output) cannot hold its files") }
            try context.refuseStore(asOutput: dir, args)
            // The site's cohort and trend pages read the summaries: those
            // left stale (or of older rules) are redone first, as the
            // cohort commands do, when the store may be written.
            if format == .html { try EventStore.refreshStaleSummaries(path: try context.databasePath(args)) }
            let store = try context.openStore(args, requireMeetings: true)
            return try batch(store: store, dir: dir, format: format, config: config, window: try context.timeWindow(args),
                             display: display, context: context)
        }
        if args.isGiven(Options.since) || args.isGiven(Options.until) { throw UsageError("--since/--until select meetings for --all") }
        guard let id = args.positionals.first else { throw UsageError("missing expected argument '<id>' (or --all)") }
        let store = try context.openStore(args)
        // One commit for every pass over the meeting, and for a page that
        // reads its charts as it is drawn, for its writing too. Only then:
        // a snapshot held while a reader is slow (`| less`) keeps an
        // ingest's log from being checkpointed.
        let made: MeetingReport? = try store.inSnapshot {
            var report = try ReportOptions.meetingReport(store, id, config: config, display: display, context)
            if let typed = args.value(Self.uid) {
                let uid = try EventStore.resolveUid(typed, among: report.analysis.participants.map(\.uid), meeting: report.header.meeting)
                let span = report.header.start.map { ($0, report.header.end ?? $0) }
                report.focus = ReportFocus(uid: uid, at: try context.time(Self.at, args, near: span))
            }
            guard format == .html && report.readsWhileDrawn else { return report }
            try ReportOptions.emit(report, format, args, context)
            return nil
        }
        if let made { try ReportOptions.emit(made, format, args, context) }
        return ExitCode.success
    }

    /// One meeting of a batch read as `report meeting ID` reads it (client
    /// by client when it is big: `ReportOptions.meetingReport`) and written
    /// as it is drawn (a 2,000-viewer hour read whole for `--all` took 508
    /// MiB in md and 715 MiB in html): its file name, its report (for the index),
    /// the files that failed (each named on stderr) and the track pages
    /// written. Equal, file for file, to what a group makes of it.
    static func oneStreamed(_ id: String, store: EventStore, writer: BatchWriter, format: ReportFormat, config: TierConfig,
                            display: TimeDisplay, progress: ProgressBar?, context: CommandContext) throws
        -> (name: String, report: MeetingReport, failures: Int, trackPages: Int)
    {
        let report = try ReportOptions.meetingReport(store, id, config: config, display: display, context, progress: progress)
        let name = writer.reserve(id)
        var failures = 0, written = 0
        func failed(_ error: Error) {
            failures += 1
            progress?.finish()
            context.stderr.write("Error: \(TerminalText.escaped("\(error)"))\n")
        }
        let trackNames = format != .html ? [:]
            : Dictionary(report.trackIDs.map { ($0, writer.reserveTrack(meeting: id, track: $0)) }, uniquingKeysWith: { a, _ in a })
        let trackReports = format == .html ? TrackReport.all(meeting: report) : [:]
        do {
            try writer.writeStreaming(name, meeting: id) { sink in
                if format == .html {
                    SitePages.write(report, trackReports, trackFiles: trackNames, to: sink)
                } else {
                    report.write(format, to: sink)
                }
            }
        } catch {
            failed(error)
        }
        // Written whatever became of the meeting's page, as a group's are.
        let tracks = SitePages.trackPages(report, trackReports, meetingFile: name, trackFiles: trackNames)
            .map { BatchWriter.Page(name: $0.name, text: $0.text) }
        for error in writer.write(pages: tracks) {
            if let error { failed(error) } else { written += 1 }
        }
        return (name, report, failures, written)
    }

    /// A batch renders up to this many meetings at once…
    static let groupMeetings = 32
    /// …holding up to this many stored reports and events between them
    /// (a meeting over it goes alone). A report holds ~150 bytes an item at
    /// its peak: four 500-viewer hours (0.9M reports each) took 741 MB as
    /// one group of md pages, 276 MB in groups of two; 32 webinars of
    /// 2,000 viewers would have taken 16 GB. Two such hours still fit, so
    /// both cores of a small machine stay busy.
    static let groupItems = 2_000_000

    /// Where the group of meetings that starts at `ids[from]` ends: at
    /// `groupMeetings`, or before the meeting that would take it past
    /// `limit` stored items (never before a first one).
    static func groupEnd(_ ids: [String], from: Int, items: (String) -> Int, limit: Int = groupItems) -> Int {
        BackgroundMap<Void>.batchEnd(ids, from: from, maxCount: groupMeetings, maxItems: limit, items: items)
    }

    /// Loads meetings one by one (SQLite stays on this thread) and renders
    /// them in parallel in small groups, so a nightly batch uses every core
    /// while holding only a group's logs in memory. In HTML the batch is a
    /// site: file names are taken before rendering, since pages link each
    /// other, and every track gets a page in `tracks/`.
    ///
    /// A meeting of more than `streamingPast` stored reports and events
    /// (one that goes alone) is read as `report meeting ID` reads it and
    /// its page written as it is drawn (`oneStreamed`).
    static func batch(store: EventStore, dir: String, format: ReportFormat, config: TierConfig,
                      window: (since: Int64?, until: Int64?) = (nil, nil), display: TimeDisplay = TimeDisplay(),
                      streamingPast: Int = groupItems, context: CommandContext) throws -> Int32 {
        let ids = try store.meetings(startingIn: window)
        // Checked before the folder is touched: a window that holds no
        // meeting must never replace a site's index with an empty one.
        if ids.isEmpty && (window.since != nil || window.until != nil) {
            throw StoreError.noMeetingInWindow(since: window.since, until: window.until)
        }
        let writer = try BatchWriter(directory: dir, format: format)
        var entries: [FleetEntry] = []
        var participants = ParticipantIndex(display: display)
        participants.config = config
        // The site's cohort and trend pages: from the summaries (the
        // defaults' tiers), or under another config from the analyses
        // made here for the meeting pages.
        let cohortsFromAnalyses = format == .html && !config.changedKeys.isEmpty
        var analysedCohorts: [CohortMeeting] = []
        var failures = 0, trackPages = 0
        entries.reserveCapacity(ids.count)
        let sizes = try store.storedItemCounts()
        let progress = ProgressBar.onTerminal(context)
        // Cleared however the loop ends: an error gets a line of its own.
        defer { progress?.finish() }
        var i = 0
        while i < ids.count {
            // Such a meeting is over `groupItems` (by default): it would go
            // alone. The site's cohort pages under a config read whole logs.
            if (sizes[ids[i]] ?? 0) > streamingPast && !cohortsFromAnalyses {
                let one = try store.inSnapshot {
                    try oneStreamed(ids[i], store: store, writer: writer, format: format, config: config, display: display,
                                    progress: progress, context: context)
                }
                failures += one.failures
                trackPages += one.trackPages
                entries.append(FleetEntry(one.report))
                if format == .html { participants.add(one.report, file: one.name) }
                i += 1
                progress?.update(count: min(i, ids.count), total: ids.count, noun: "meetings")
                continue
            }
            let end = Self.groupEnd(ids, from: i, items: { sizes[$0] ?? 0 })
            let slice = Array(ids[i..<end])
            let logs = try slice.map { id in try ReportOptions.meetingLog(store, id, context, progress: progress) }
            let connections = try logs.map { try store.connectionFigures(meeting: $0.meeting) }
            let reports = ConcurrentSlots<MeetingReport>(count: logs.count)
            let cohorts = ConcurrentSlots<Result<CohortMeeting, any Error>>(count: logs.count)
            DispatchQueue.concurrentPerform(iterations: logs.count) { k in
                var report = MeetingReport(log: logs[k], config: config)
                report.display = display
                report.connections = connections[k]
                reports.set(k, report)
                if cohortsFromAnalyses {
                    cohorts.set(k, Result { try CohortMeeting(analysis: report.analysis, context: report.context, log: logs[k]) })
                }
            }
            if cohortsFromAnalyses { analysedCohorts += try (0..<logs.count).map { try cohorts.get($0)!.get() } }
            let names = slice.map { writer.reserve($0) }
            let trackNames: [[String: String]] = (0..<slice.count).map { k in
                format == .html ? Dictionary(reports.get(k)!.trackIDs.map { ($0, writer.reserveTrack(meeting: slice[k], track: $0)) }, uniquingKeysWith: { a, _ in a }) : [:]
            }
            let pages = ConcurrentSlots<(String, [(name: String, text: String)])>(count: logs.count)
            DispatchQueue.concurrentPerform(iterations: logs.count) { k in
                let report = reports.get(k)!
                if format == .html {
                    let site = SitePages.render(report, meetingFile: names[k], trackFiles: trackNames[k])
                    pages.set(k, (site.meeting, site.tracks))
                } else {
                    pages.set(k, (report.render(format), []))
                }
            }
            // One file that cannot be written (a folder in the way, a full
            // disk) does not cost the others: they and the index are
            // written, the failures named, and the exit code is 1.
            var batch: [BatchWriter.Page] = []
            for k in slice.indices {
                let (text, tracks) = pages.get(k)!
                batch.append(BatchWriter.Page(name: names[k], text: text, meeting: slice[k]))
                batch += tracks.map { BatchWriter.Page(name: $0.name, text: $0.text) }
                entries.append(FleetEntry(reports.get(k)!))
                if format == .html { participants.add(reports.get(k)!, file: names[k]) }
            }
            for (page, error) in zip(batch, writer.write(pages: batch)) {
                if let error {
                    failures += 1
                    progress?.finish()
                    context.stderr.write("Error: \(TerminalText.escaped("\(error)"))\n")
                } else if page.meeting == nil {
                    trackPages += 1
                }
            }
            i = end
            progress?.update(count: min(i, ids.count), total: ids.count, noun: "meetings")
        }
        progress?.finish()
        // A site also gets the fleet-wide cohort and trend pages, linked
        // from its index (Docs/cohorts.md).
        var sitePages: [(title: String, file: String)] = []
        if format == .html {
            let cohorts = cohortsFromAnalyses ? analysedCohorts : try store.cohortMeetings(startingIn: window)
            do {
                try writer.writeSitePage(SiteCohortPages.cohorts, SiteCohortPages.cohortsPage(cohorts, config: config))
                try writer.writeSitePage(SiteCohortPages.trends, SiteCohortPages.trendsPage(cohorts, config: config, zone: display.zone ?? .utc))
                sitePages = SiteCohortPages.links
            } catch {
                failures += 1
                context.stderr.write("Error: \(TerminalText.escaped("\(error)"))\n")
            }
        }
        let index = try writer.writeIndex(entries, display: display, config: config, participants: format == .html ? participants : nil,
                                          sitePages: sitePages)
        let tracks = trackPages > 0 ? ", \(trackPages) track pages" : ""
        let written = writer.files.count
        context.stderr.write("wrote \(written) of \(ids.count) reports\(tracks) and \(index) to \(TerminalText.escaped(dir))\n")
        return failures == 0 ? ExitCode.success : ExitCode.failure
    }
}

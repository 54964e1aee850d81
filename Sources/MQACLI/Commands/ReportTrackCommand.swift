import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa report track TRACK --meeting ID`
enum ReportTrackCommand {
    static let spec = CommandSpec(
        name: "report track",
        abstract: "One published track as each subscriber received it, and whose fault its stalls are.",
        discussion: """
            A stall is shared when every other subscriber rendering the track at its
            start (at least one; one whose quality reports had stopped counts neither
            way) had a stall of the track overlapping it within ±2 s. The track is
            sender-side when more than half of all its stalls are shared,
            subscriber-side otherwise.
            """,
        arguments: [("TRACK", "The track id, as in stream_subscribe.")],
        minPositionals: 1, maxPositionals: 1,
        options: [Options.db, Options.config, meeting, Options.tz, ReportOptions.format, Options.out],
        examples: [
            ("One published track as each subscriber received it", "mqa report track --meeting m-7476 u-21f6-cam"),
        ])

    static let meeting = Option<String>.string("--meeting", value: "ID", help: "The meeting.", required: true,
                                               validate: Options.nonEmptyId)

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: ReportFormat = try args.get(ReportOptions.format)
        let config = try context.tierConfig(args)
        let meeting: String = try args.get(Self.meeting)
        let display = TimeDisplay(zone: try context.zone(args))
        let store = try context.openStore(args)
        let resolved = try store.resolveMeeting(meeting)
        let m = try ReportOptions.analysedMeeting(store, resolved, config: config, context)
        let analysis = m.analysis
        // A browser dump's own id of a track is the sender's id in the
        // report (Docs/import.md, "One call, several dumps"): either finds
        // it. An id that dumps give to different senders' tracks is
        // refused with their names, not settled by chance.
        var id = args.positionals[0]
        if !analysis.subscriptions.contains(where: { $0.track == id }) {
            let senders = Set(try store.senderTracks(meeting: resolved).values.compactMap { $0[id] }).sorted()
            if senders.count > 1 { throw ReportError.ambiguousTrack(track: id, meeting: resolved, senders: senders) }
            if let sender = senders.first { id = sender }
        }
        let track = try TrackReport(header: m.header, analysis: analysis, display: display, track: id)
        try ReportOptions.emit(track, format, args, context)
        return ExitCode.success
    }
}

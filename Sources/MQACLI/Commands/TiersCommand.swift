import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa tiers --meeting ID [--uid U]`
enum TiersCommand {
    static let spec = CommandSpec(
        name: "tiers",
        abstract: "Show the recomputed tier timeline of a meeting, per connection.",
        discussion: """
            Recomputes each connection's quality tier from its warm reports with the
            tier machine of Docs/tiers.md (smoothing, hysteresis, dwell, gap reset),
            under the defaults or --config. Lists every tier change, the time spent in
            each tier and the flaps (changes between two known tiers).
            """,
        options: [Options.db, meeting, uid, Options.config, Options.tz, format, Options.out],
        examples: [
            ("A participant's recomputed tiers, with local times beside UTC", "mqa tiers --meeting m-7476 --uid alice --tz Europe/Berlin"),
            ("Every connection's tier changes under another tier config, as CSV", "mqa tiers --meeting m-7476 --config strict.json -f csv"),
        ])

    static let meeting = Option<String>.string("--meeting", value: "ID", help: "The meeting.", required: true,
                                               validate: Options.nonEmptyId)
    static let uid = Option<String>.string("--uid", value: "U", help: "Only this client (a uid, or a unique prefix of one).",
                                           validate: Options.nonEmptyId)
    static let format = Options.format(["md", "json", "csv"])

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let given: String = try args.get(Self.meeting)
        let format: String = try args.get(Self.format)
        let config = try context.tierConfig(args)
        let display = TimeDisplay(zone: try context.zone(args))
        let store = try context.openStore(args)
        let meeting = try store.resolveMeeting(given)
        // Long series are read chunk by chunk: memory stays bounded.
        guard let (log, analysis) = try store.analyzeMeeting(meeting, config: config) else {
            throw StoreError.noMeeting(meeting)
        }
        let uid = try args.value(Self.uid).map { try store.resolveUid($0, meeting: meeting) }
        if let uid, !log.clients.contains(where: { $0.uid == uid }) {
            throw StoreError.noClient(meeting: meeting, uid: uid)
        }
        var report = TiersReport(analysis, uid: uid)
        report.display = display
        let out = try context.output(args)
        report.write(ReportFormat(rawValue: format) ?? .md, to: out)
        out.flush()
        return ExitCode.success
    }
}

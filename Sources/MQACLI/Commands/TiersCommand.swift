import Foundation
import MQADomain

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
        options: [
            CommandContext.dbOption,
            .option("--meeting", value: "ID", help: "The meeting (required)."),
            .option("--uid", value: "U", help: "Only this client."),
            CommandContext.configOption,
            .option("--format", value: "FORMAT", help: "md (default), json or csv."),
            CommandContext.outOption,
        ])

    static let command = Subcommand(spec: spec, run: run)

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        guard let given = args.value("--meeting") else { throw UsageError("missing '--meeting <id>'") }
        let format = try context.format(args, ["md", "json", "csv"], usage: spec.usage)
        let config = try context.tierConfig(args)
        let store = try context.openStore(args)
        let meeting = try store.resolveMeeting(given)
        // Long series are read chunk by chunk: memory stays bounded.
        guard let (log, analysis) = try store.analyzeMeeting(meeting, config: config) else {
            throw StoreError.noMeeting(meeting)
        }
        let uid = args.value("--uid")
        if let uid, !log.clients.contains(where: { $0.uid == uid }) {
            throw StoreError.noClient(meeting: meeting, uid: uid)
        }
        let connections = analysis.connections.filter { uid == nil || $0.uid == uid }
        let out = try context.output(args)
        switch format {
        case "json":
            out.write(analysis.tiersJSON(uid: uid).rendered(pretty: true) + "\n")
        case "csv":
            out.write("uid,connection,ts,time,from,to\n")
            for c in connections {
                for change in c.changes {
                    out.write("\(CSV.cell(c.uid)),\(c.index),\(change.ts),\(Time.iso(change.ts)),\(change.from.name),\(change.to.name)\n")
                }
            }
        default:
            out.write("# Tiers of meeting \(Markdown.escape(meeting))\n\n")
            if analysis.isCDN { out.write("No quality data (CDN engine): the CDN engine has no quality feed, so no tier can be computed.\n\n") }
            for c in connections {
                out.write("## \(Markdown.escape(c.uid)), connection \(c.index): \(Time.iso(c.start)) – \(Time.iso(c.end)) (\(Time.duration(c.end - c.start)))\n\n")
                var time = MarkdownTable(headers: Tier.reportOrder.map(\.name), rightAligned: Set(0..<6))
                time.add(Tier.reportOrder.map { Time.duration(c.tierMs[$0]) })
                out.write(time.rendered + "\n")
                out.write("\(c.changes.count) changes, \(c.flaps) flaps, \(c.warmReports) warm and \(c.coldReports) cold reports\n\n")
                if !c.changes.isEmpty {
                    var table = MarkdownTable(headers: ["time", "+offset", "from", "to"], rightAligned: [1])
                    for change in c.changes {
                        table.add([Time.iso(change.ts), Time.duration(change.ts - c.start), change.from.name, change.to.name])
                    }
                    out.write(table.rendered + "\n")
                }
            }
        }
        out.flush()
        return ExitCode.success
    }
}

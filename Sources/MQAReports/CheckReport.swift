import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// `mqa check`: what the store check found.
public struct CheckReport: Sendable {
    public var result: StoreCheckResult
    /// The store's path, for the title.
    public var path: String

    /// Damaged chunks listed in Markdown before "… and N more".
    public static let shownDamage = 1000
    /// The JSON's `schema`.
    public static let schema = "mqa.check/1"

    public init(_ result: StoreCheckResult, path: String) {
        self.result = result
        self.path = path
    }

    /// The report in `format`: md, json, or csv (one row per damage).
    public func render(_ format: ReportFormat) -> String {
        switch format {
        case .json: result.json.withSchema(CheckReport.schema).rendered(pretty: true) + "\n"
        case .csv: csv
        default: markdown
        }
    }

    /// Every damage as a row (the header alone for a sound store), under
    /// the JSON's `damaged` keys; a file's damage has no meeting, uid or chunk.
    public var csv: String {
        var text = "meeting,uid,table,chunk,reason\n"
        for d in result.damage {
            text += [CSV.cell(d.meeting), CSV.cell(d.uid), CSV.cell(d.table), d.chunk.map(String.init) ?? "", CSV.cell(d.reason)]
                .joined(separator: ",") + "\n"
        }
        return text
    }

    /// The counts, then every damaged chunk (the first `shownDamage`).
    public var markdown: String {
        let r = result
        var text = "# Store check: \(Markdown.escape(path))\n\n"
        text += "- SQLite integrity_check: \(r.integrity == ["ok"] ? "ok" : "FAILED (\(r.integrity.count) messages)")\n"
        text += "- report chunks: \(r.reportChunks) (\(r.reports) quality reports)\n"
        text += "- event chunks: \(r.eventChunks) (\(r.events) events)\n"
        if r.isClean {
            text += "\nNo damage found.\n"
            return text
        }
        text += "\n## Damage (\(r.damage.count))\n\n"
        var table = ReportTable(headers: ["meeting", "uid", "table", "chunk", "reason"])
        for d in r.damage.prefix(CheckReport.shownDamage) {
            table.add([.text(d.meeting), .text(d.uid), .text(d.table), .int(d.chunk, none: "—"), .text(d.reason)])
        }
        text += table.markdown
        if r.damage.count > CheckReport.shownDamage {
            text += "\n… and \(r.damage.count - CheckReport.shownDamage) more (`--format json` lists all)\n"
        }
        return text
    }
}

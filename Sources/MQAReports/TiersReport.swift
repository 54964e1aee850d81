import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// `mqa tiers`: the recomputed tier timeline of a meeting, per connection.
public struct TiersReport: Sendable {
    public var analysis: MeetingAnalysis
    /// Only this client's connections, when given.
    public var uid: String?
    /// How instants are written in md (`--tz`).
    public var display = TimeDisplay()

    /// The JSON's `schema`.
    public static let schema = "mqa.tiers/1"

    public init(_ analysis: MeetingAnalysis, uid: String? = nil) {
        self.analysis = analysis
        self.uid = uid
    }

    var connections: [ConnectionAnalysis] { analysis.connections.filter { uid == nil || $0.uid == uid } }

    /// The report in `format`: md, json or csv.
    public func render(_ format: ReportFormat) -> String {
        switch format {
        case .json: analysis.tiersJSON(uid: uid).withSchema(TiersReport.schema).rendered(pretty: true) + "\n"
        case .csv: csv
        case .md, .html: markdown
        }
    }

    /// Writes the report in `format` to `out`: the bytes of `render`,
    /// streamed a connection at a time (a 2,000-viewer hour's md and JSON
    /// are 48 and 74 MB; whole, they took 197 and 378 MB, and its CSV's
    /// table of every change 508 MB).
    public func write(_ format: ReportFormat, to out: OutputSink) {
        switch format {
        case .md, .html: writeMarkdown { out.write($0) }
        case .csv: writeCSV { out.write($0) }
        case .json: writeJSON(to: out)
        }
    }

    private func writeJSON(to out: OutputSink) {
        var w = JSONStreamWriter(out, pretty: true)
        w.beginObject()
        w.value(.string(TiersReport.schema), key: "schema")
        for (key, value) in analysis.tiersJSONHead { w.value(value, key: key) }
        w.beginArray(key: "connections")
        for c in connections { w.value(c.json) }
        w.end()
        w.end()
        w.finish()
        out.write("\n")
    }

    /// One row per tier change.
    public var csv: String {
        var out = ""
        writeCSV { out += $0 }
        return out
    }

    /// The CSV in pieces, a connection's rows each, to `emit`.
    func writeCSV(_ emit: (String) -> Void) {
        let headers = ["uid", "index", "ts", "time", "from", "to"]
        let table = ReportTable(headers: headers)
        emit(table.csvHeader)
        for c in connections where !c.changes.isEmpty {
            table.writeCSVRows(rows: c.changes.count, { k in
                let change = c.changes[k]
                return [.text(c.uid), .int(c.index), .int(change.ts), .text(Time.iso(change.ts)),
                        .text(change.from.name), .text(change.to.name)]
            }, emit)
        }
    }

    /// Per connection: its span, the time in each tier and every change.
    public var markdown: String {
        var out = ""
        writeMarkdown { out += $0 }
        return out
    }

    /// The markdown in pieces, a connection each, to `emit`.
    func writeMarkdown(_ emit: (String) -> Void) {
        var out = "# Tiers of meeting \(Markdown.escape(analysis.meeting))\n\n"
        if analysis.isCDN { out += "No quality data (CDN engine): the CDN engine has no quality feed, so no tier can be computed.\n\n" }
        out += ConfigNote.paragraph(analysis.config)
        // Local clocks carry their date when the meeting spans more than
        // one day of the zone, as the meeting report's do: `00:10:02` after
        // `23:50:02` would read as earlier.
        var clocks = display
        if let span = analysis.span { clocks.date(forSpan: span.first, span.last) }
        for c in connections {
            out += "## \(Markdown.escape(c.uid)), connection \(c.index): \(display.timestamp(c.start)) – \(display.timestamp(c.end)) (\(Time.duration(c.end - c.start)))\n\n"
            var time = ReportTable(headers: Tier.reportOrder.map(\.name), numeric: Set(0..<6))
            time.add(text: Tier.reportOrder.map { Time.duration(c.tierMs[$0]) })
            out += time.markdown + "\n"
            out += "\(c.changes.count) changes, \(c.flaps) flaps, \(c.warmReports) warm and \(c.coldReports) cold reports\n\n"
            if !c.changes.isEmpty {
                let local = display.zone.map { ["time (\($0.identifier))"] } ?? []
                let table = ReportTable(headers: ["time"] + local + ["+offset", "from", "to"], numeric: [1 + local.count])
                emit(out)
                out = ""
                table.writeMarkdown(rows: c.changes.count, { k in
                    let change = c.changes[k]
                    let clock = display.zone.map { z in [clocks.clock(change.ts) + " " + z.offsetText(at: change.ts)] } ?? []
                    return ([Time.iso(change.ts)] + clock + [Time.duration(change.ts - c.start), change.from.name, change.to.name]).map(ReportCell.text)
                }, emit)
                out += "\n"
            }
            emit(out)
            out = ""
        }
        emit(out)
    }
}

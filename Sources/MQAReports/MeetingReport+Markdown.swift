import Foundation
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

// The terminal form: a header block, then one aligned table per concern so
// that no table is wider than a laptop terminal needs to be.
extension MeetingReport {
    /// `mqa report meeting --format md`.
    public var markdown: String {
        var text = ""
        writeMarkdown { text += $0 }
        return text
    }

    /// The Markdown in pieces, in order, to `emit`: the incidents a line
    /// at a time (a 2,000-viewer webinar lists 94,000 of them, 11 MB
    /// that were held twice over while the text was joined).
    func writeMarkdown(_ emit: (String) -> Void) {
        let t0 = timeRange.start
        var out = "# Meeting \(MarkdownText.inline(header.meeting))\n\n"
        // A two-column table of facts; its "header" is the id, escaped here
        // because headers are shown as they are.
        var head = ReportTable(headers: ["meeting", Markdown.escape(header.meeting)])
        head.add(text: ["title", header.title ?? "—"])
        head.add(text: ["engine", header.engine ?? "—"])
        head.add(text: ["start", header.start.map(display.timestamp) ?? "—"])
        head.add(text: ["end", header.end.map(display.timestamp) ?? "—"])
        head.add(text: ["duration", header.durationMs.map(ReportText.duration) ?? "—"])
        head.add(text: ["participants", String(header.participants)])
        head.add(text: ["incidents", String(incidents.count)])
        out += head.markdown + "\n"
        out += "Times below are offsets from the start (+m:ss.mmm); incidents also show the wall clock, \(display.clockName(at: t0)); "
        out += "statistics are over warm reports.\n\n"
        out += ConfigNote.paragraph(analysis.config)
        if !damage.isEmpty {
            out += "> **Warning: \(damageNotice)**\n"
            for d in damage { out += ">\n> - \(MarkdownText.inline(d))\n" }
            out += "\n"
        }
        if !hasQualityData {
            out += "> **\(MeetingReport.noQualityData)**: this meeting ran on the CDN engine, which has no quality feed; "
            out += "MOS, loss, RTT, jitter, bitrate and tiers are not shown. Stalls below come from the track status events.\n\n"
        }

        if let sampling { out += "> **Warning: \(sampling.text(naming: MarkdownText.inline).capitalizedFirst)**\n\n" }
        out += focusMarkdown(t0)
        out += verdictMarkdown(t0)
        // Each section goes out when made: held to the end, a 20,000-viewer
        // webinar's sections before the incidents were 32 MB at once.
        emit(out)
        out = ""

        emit("## Participants\n\n")
        let participants = analysis.participants
        let conn = ReportTable(headers: ["uid", "connections", "disconnects", "abnormal", "reconnects",
                                         "warm reports", "cold reports"], numeric: [1, 2, 3, 4, 5, 6])
        LazyReportTable(conn, count: participants.count) { i in
            let p = participants[i]
            return [p.uid, String(p.connections), String(p.disconnects.count), String(p.disconnects.count { $0.error != nil }),
                    String(p.reconnects), String(p.warmReports), String(p.coldReports)].map(ReportCell.text)
        }.writeMarkdown(emit)
        emit("\n")

        if let clients = clientsTable(t0) {
            emit("### Clients\n\n")
            clients.writeMarkdown(emit)
            emit("\n")
        }
        if let connections = connectionsTable {
            emit("### Connections\n\nFrom the dump's standard stats: context, not counted in the figures.\n\n" + connections.markdown + "\n")
        }

        if hasQualityData {
            emit("### Quality\n\n")
            qualityTable.writeMarkdown(emit)
            emit("\n### Time per tier\n\n")
            tierTable.writeMarkdown(emit)
            emit("\n")
        }

        if analysis.participants.contains(where: { !$0.disconnects.isEmpty }) {
            emit("### Disconnects\n\n")
            disconnectsTable(t0).writeMarkdown(emit)
            emit("\n")
        }

        emit(contextMarkdown(t0))
        emit("## Tracks\n\n")
        let subscriptions = analysis.subscriptions
        if subscriptions.isEmpty {
            emit("No subscriptions.\n\n")
        } else {
            let tr = ReportTable(headers: ["subscriber", "publisher", "track", "kind", "subscribed", "first frame",
                                           "stalls", "stalled", "stall ratio", "under good tier"],
                                 numeric: [5, 6, 7, 8, 9])
            LazyReportTable(tr, count: subscriptions.count) { subscriptionCells(subscriptions[$0], t0) }.writeMarkdown(emit)
            emit("\n")
            // The codes of a subscription as a list under the table: in a
            // column they made every row as wide as the longest list.
            var heading = "### Track issues\n\n"
            for s in subscriptions {
                let codes = trackIssueCodes(s)
                guard !codes.isEmpty else { continue }
                emit(heading + "- \(MarkdownText.inline(s.subscriber)) ← \(MarkdownText.inline(s.track)) (\(MarkdownText.inline(s.publisher)), "
                     + "subscribed \(ReportText.offset(s.subscribeTs, from: t0))): " + codes.map(\.rawValue).joined(separator: ", ") + "\n")
                heading = ""
            }
            if heading.isEmpty { emit("\n") }
            let stalls = stallPositions
            if !stalls.isEmpty {
                emit("### Stalls\n\n")
                let st = ReportTable(headers: ["subscriber", "track", "start", "end", "length", "tier at start"], numeric: [4])
                LazyReportTable(st, count: stalls.count) { k in
                    let s = subscriptions[Int(stalls[k].subscription)]
                    return stallCells(s, s.stalls[Int(stalls[k].stall)], t0)
                }.writeMarkdown(emit)
                emit("\n")
            }
        }

        let notes = contextNotes
        if !notes.isEmpty {
            out += "### What else was happening\n\n"
            for n in notes {
                out += "- \(MarkdownText.inline(n.subject)): " + n.explanations.map(MarkdownText.inline).joined(separator: "; also ") + "\n"
            }
            out += "\n"
        }

        emit(out)
        writeIncidentsMarkdown(t0, emit)
        emit(tuningMarkdown())
        writeIssuesMarkdown(emit)
    }
}

extension MeetingReport {
    /// The Context section: talk time and hands per participant, each
    /// participant's context timeline, shares and sub-meeting moves. Left
    /// out when the logs have none of it.
    func contextMarkdown(_ t0: Int64) -> String {
        guard hasContextSection else { return "" }
        var out = "## Context\n\n"
        out += "What the speaker snapshots and the context events say; none of it changes a figure above.\n\n"
        for part in contextTables(t0) {
            if let heading = part.heading { out += "### \(MarkdownText.inline(heading))\n\n" }
            out += part.table.markdown + "\n"
        }
        return out
    }
}

/// Text from the logs outside a table cell.
enum MarkdownText {
    static func inline(_ text: String) -> String { Markdown.escape(text) }
}

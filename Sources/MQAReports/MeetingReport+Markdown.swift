import Foundation
import MQADomain

// The terminal form: a header block, then one aligned table per concern so
// that no table is wider than a laptop terminal needs to be.
extension MeetingReport {
    /// `mqa report meeting --format md`.
    public var markdown: String {
        let t0 = timeRange.start
        var out = "# Meeting \(MarkdownText.inline(header.meeting))\n\n"
        var head = MarkdownTable(headers: ["meeting", Markdown.escape(header.meeting)])
        head.add(["title", header.title ?? "—"])
        head.add(["engine", header.engine ?? "—"])
        head.add(["start", header.start.map(ReportText.timestamp) ?? "—"])
        head.add(["end", header.end.map(ReportText.timestamp) ?? "—"])
        head.add(["duration", header.durationMs.map(ReportText.duration) ?? "—"])
        head.add(["participants", String(header.participants)])
        out += head.safeRendered + "\n"
        out += "Times below are offsets from the start (+m:ss.mmm); statistics are over warm reports.\n\n"
        if !damage.isEmpty {
            out += "> **Warning: \(damageNotice)**\n"
            for d in damage { out += ">\n> - \(MarkdownText.inline(d))\n" }
            out += "\n"
        }
        if !hasQualityData {
            out += "> **\(MeetingReport.noQualityData)**: this meeting ran on the CDN engine, which has no quality feed; "
            out += "MOS, loss, RTT, jitter, bitrate and tiers are not shown. Stalls below come from the track status events.\n\n"
        }

        out += verdictMarkdown(t0)

        out += "## Participants\n\n"
        var conn = MarkdownTable(headers: ["uid", "connections", "disconnects", "abnormal", "reconnects",
                                           "warm reports", "cold reports"], rightAligned: [1, 2, 3, 4, 5, 6])
        for p in analysis.participants {
            conn.add([p.uid, String(p.connections), String(p.disconnects.count),
                      String(p.disconnects.count { $0.error != nil }), String(p.reconnects),
                      String(p.warmReports), String(p.coldReports)])
        }
        out += conn.safeRendered + "\n"

        if hasQualityData {
            out += "### Quality\n\n"
            var q = MarkdownTable(headers: ["uid", "MOS mean", "p5", "p50", "p95", "loss % mean", "p95",
                                            "RTT ms mean", "p95", "jitter ms mean", "p95", "kbps mean", "p5"],
                                  rightAligned: Set(1...12))
            for p in analysis.participants {
                func n(_ x: Double?) -> String { ReportText.number(x) }
                q.add([p.uid, n(p.mos?.mean), n(p.mos?.p5), n(p.mos?.p50), n(p.mos?.p95),
                       n(p.lossPct?.mean), n(p.lossPct?.p95), n(p.rttMs?.mean), n(p.rttMs?.p95),
                       n(p.jitterMs?.mean), n(p.jitterMs?.p95), n(p.bitrateKbps?.mean), n(p.bitrateKbps?.p5)])
            }
            out += q.safeRendered + "\n"

            out += "### Time per tier\n\n"
            var tiers = MarkdownTable(headers: ["uid"] + Tier.reportOrder.map(\.name) + ["changes", "flaps", "SDK agreement"],
                                      rightAligned: Set(1...9))
            for p in analysis.participants {
                tiers.add([p.uid] + Tier.reportOrder.map { ReportText.duration(p.tierMs[$0]) }
                          + [String(p.tierChanges), String(p.flaps), ReportText.percent(p.sdkTierAgreement)])
            }
            out += tiers.safeRendered + "\n"
        }

        let disconnects = analysis.participants.flatMap { p in p.disconnects.map { (p.uid, $0) } }
        if !disconnects.isEmpty {
            out += "### Disconnects\n\n"
            var d = MarkdownTable(headers: ["uid", "at", "reason", "error"])
            for (uid, x) in disconnects { d.add([uid, ReportText.offset(x.ts, from: t0), x.reason, x.error ?? "—"]) }
            out += d.safeRendered + "\n"
        }

        out += contextMarkdown(t0)

        out += "## Tracks\n\n"
        if analysis.subscriptions.isEmpty {
            out += "No subscriptions.\n\n"
        } else {
            var tr = MarkdownTable(headers: ["subscriber", "publisher", "track", "kind", "subscribed", "first frame",
                                             "stalls", "stalled", "stall ratio", "under good tier"],
                                   rightAligned: [5, 6, 7, 8, 9])
            for s in analysis.subscriptions {
                tr.add([s.subscriber, s.publisher, s.track, s.kind ?? "—", ReportText.offset(s.subscribeTs, from: t0),
                        s.timeToFirstFrameMs.map { "\($0) ms" } ?? "never",
                        String(s.stallCount), ReportText.duration(s.stalledMs), ReportText.percent(s.stallRatio, places: 2),
                        String(s.stallsUnderGoodTier)])
            }
            out += tr.safeRendered + "\n"
            // The codes of a subscription as a list under the table: in a
            // column they made every row as wide as the longest list.
            let flagged = analysis.subscriptions.compactMap { s in
                let codes = trackIssueCodes(s)
                return codes.isEmpty ? nil : (s, codes)
            }
            if !flagged.isEmpty {
                out += "### Track issues\n\n"
                for (s, codes) in flagged {
                    out += "- \(MarkdownText.inline(s.subscriber)) ← \(MarkdownText.inline(s.track)) (\(MarkdownText.inline(s.publisher)), "
                    out += "subscribed \(ReportText.offset(s.subscribeTs, from: t0))): " + codes.map(\.rawValue).joined(separator: ", ") + "\n"
                }
                out += "\n"
            }
            let stalls = analysis.subscriptions.flatMap { s in s.stalls.map { (s, $0) } }
            if !stalls.isEmpty {
                out += "### Stalls\n\n"
                var st = MarkdownTable(headers: ["subscriber", "track", "start", "end", "length", "tier at start"],
                                       rightAligned: [4])
                for (s, x) in stalls {
                    st.add([s.subscriber, s.track, ReportText.offset(x.start, from: t0),
                            ReportText.offset(x.end, from: t0) + (x.open ? " (open)" : ""),
                            ReportText.duration(x.durationMs), x.tier.name])
                }
                out += st.safeRendered + "\n"
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

        out += incidentsMarkdown(t0)

        out += "## Issues\n\n"
        if analysis.issues.isEmpty {
            out += "None.\n"
        } else {
            var iss = MarkdownTable(headers: ["code", "uid", "detail"])
            for i in analysis.issues { iss.add([i.code.rawValue, i.uid ?? "—", i.detail]) }
            out += iss.safeRendered
        }
        return out
    }
}

extension MeetingReport {
    /// The Context section: talk time and hands per participant, each
    /// participant's context timeline, shares and sub-meeting moves. Left
    /// out when the logs have none of it.
    func contextMarkdown(_ t0: Int64) -> String {
        let people = context.participants.filter { $0.talkMs > 0 || $0.handups > 0 || $0.hasItems }
        guard !people.isEmpty || !context.shares.isEmpty || !context.subMeetingMoves.isEmpty else { return "" }
        var out = "## Context\n\n"
        out += "What the speaker snapshots and the context events say; none of it changes a figure above.\n\n"
        if !people.isEmpty {
            var t = MarkdownTable(headers: ["uid", "talk time", "hands raised", "media changes", "audio routes",
                                            "interruptions", "device changes"], rightAligned: Set(1...6))
            for p in people {
                t.add([p.uid, ReportText.duration(p.talkMs), String(p.handups), String(p.mediaChanges.count),
                       String(p.audioRoutes.count), String(p.interruptions.count), String(p.devices.count)])
            }
            out += t.safeRendered + "\n"
        }
        for p in people where p.hasItems {
            out += "### \(MarkdownText.inline(p.uid))\n\n"
            var t = MarkdownTable(headers: ["at", "what"])
            for r in contextRows(p) { t.add([ReportText.offset(r.ts, from: t0), r.what]) }
            out += t.safeRendered + "\n"
        }
        if !context.shares.isEmpty {
            out += "### Shares\n\n"
            var t = MarkdownTable(headers: ["publisher", "kind", "start", "end"])
            for s in context.shares {
                t.add([s.publisher, s.kind.rawValue, ReportText.offset(s.startTs, from: t0),
                       s.endTs.map { ReportText.offset($0, from: t0) } ?? "(not stopped)"])
            }
            out += t.safeRendered + "\n"
        }
        if !context.subMeetingMoves.isEmpty {
            out += "### Moves to sub-meetings\n\n"
            var t = MarkdownTable(headers: ["at", "uid", "target", "reason"])
            for m in context.subMeetingMoves { t.add([ReportText.offset(m.ts, from: t0), m.uid, m.target, m.reason ?? "—"]) }
            out += t.safeRendered + "\n"
        }
        return out
    }
}

extension MarkdownTable {
    /// The same as `rendered`: cells are escaped when added.
    var safeRendered: String { rendered }
}

/// Text from the logs outside a table cell.
enum MarkdownText {
    static func inline(_ text: String) -> String { Markdown.escape(text) }
}

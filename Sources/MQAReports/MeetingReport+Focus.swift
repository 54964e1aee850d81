import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// `mqa report meeting ID --uid U [--at T]`: whom (and when) the reader is
/// looking for, so the report can open with that person's incidents.
public struct ReportFocus: Sendable, Equatable {
    /// The participant, a uid of the meeting (already resolved from a prefix).
    public var uid: String
    /// The instant the person complained about, ms; nil for "any time".
    public var at: Int64?

    public init(uid: String, at: Int64? = nil) {
        self.uid = uid
        self.at = at
    }
}

// The section a focused report opens with, before the verdict: the
// participant's impact, then their incidents, those nearest to T first.
extension MeetingReport {
    /// The incidents that concern the focused participant, with their
    /// number (start order, the anchor `i-N`) and their distance from T:
    /// their own incidents, and a track's incident they stalled in as a
    /// subscriber (`evidence.subscribers`) or caused as its publisher.
    /// With T, nearest first (an incident around T is 0 away; ties by
    /// start); without, most impact first, as the verdict ranks.
    func focusIncidents(_ focus: ReportFocus) -> [(number: Int, incident: Incident, distanceMs: Int64?)] {
        let mine = rankedIncidents.filter { $0.incident.uid == focus.uid || $0.incident.evidence.subscribers.contains(focus.uid) }
        guard let at = focus.at else { return mine.map { ($0.number, $0.incident, nil) } }
        return mine.map { ($0.number, $0.incident, MeetingReport.distance(at, $0.incident)) }
            .sorted { ($0.distanceMs!, $0.incident.startTs, $0.number) < ($1.distanceMs!, $1.incident.startTs, $1.number) }
    }

    /// 0 when `at` is inside the incident's window, else how far it is
    /// from the nearer end.
    static func distance(_ at: Int64, _ i: Incident) -> Int64 {
        at < i.startTs ? i.startTs - at : at > i.endTs ? at - i.endTs : 0
    }

    /// Incidents the focus section lists before "and N more".
    static let focusIncidentsShown = 10

    /// `at 14:05:00`, `3 m 10 s after 14:05:00`, `40 s before 14:05:00`.
    func whenText(_ i: Incident, _ distance: Int64, at: Int64) -> String {
        let t = atText(at)
        if distance == 0 { return "around \(t)" }
        return "\(ReportText.duration(distance)) \(i.startTs > at ? "after" : "before") \(t)"
    }

    /// T on the page's wall clock, dated when that is not the meeting's
    /// first day (`--at -3d` is days away: "10:00:00" alone misleads).
    func atText(_ at: Int64) -> String {
        let zone = display.clockZone
        if let start = header.start, zone.day(of: at) != zone.day(of: start) { return zone.dateTime(at) }
        return display.clock(at)
    }

    /// The heading's sentence: `alice: stalled 6 m 40 s …; 3 incidents, nearest to 14:05:00 first.`
    func focusLead(_ focus: ReportFocus) -> String {
        let found = focusIncidents(focus)
        var s = focus.uid + ": " + (impacts.first { $0.uid == focus.uid }.map(IncidentText.impact) ?? "not a participant") + ". "
        if found.isEmpty { return s + "No incidents in this meeting." }
        s += "\(found.count) incident\(found.count == 1 ? "" : "s")"
        if let at = focus.at {
            s += ", nearest to \(atText(at)) \(display.clockName(at: at)) first"
            if let start = header.start, let end = header.end, at < start || at > end {
                s += " (\(atText(at)) is \(ReportText.duration(at < start ? start - at : at - end)) "
                    + "\(at < start ? "before the meeting's start" : "after its end"))"
            }
        } else {
            s += ", most impact first"
        }
        return s + "."
    }

    func focusMarkdown(_ t0: Int64) -> String {
        guard let focus else { return "" }
        var out = "## \(MarkdownText.inline(focus.uid))\n\n\(MarkdownText.inline(focusLead(focus)))\n\n"
        let found = focusIncidents(focus)
        for f in found.prefix(MeetingReport.focusIncidentsShown) {
            var line = incidentLine(f.number, f.incident, t0)
            if let d = f.distanceMs, let at = focus.at { line = String(line.dropLast()) + " — \(whenText(f.incident, d, at: at))\n" }
            out += line
        }
        if found.count > MeetingReport.focusIncidentsShown {
            out += "\nand \(found.count - MeetingReport.focusIncidentsShown) more under Incidents.\n"
        }
        return out + (found.isEmpty ? "" : "\n")
    }

    func focusHTML(_ t0: Int64) -> String {
        guard let focus else { return "" }
        var b = "<section id=\"focus\" class=\"verdict\">\n<h2>\(focus.uid.html)</h2>\n<p class=\"lead\">\(focusLead(focus).html)</p>\n"
        let found = focusIncidents(focus)
        if !found.isEmpty {
            b += "<ol class=\"incidents\">\n"
            let placement = issuePlacement
            for f in found.prefix(MeetingReport.focusIncidentsShown) {
                var note = ""
                if let d = f.distanceMs, let at = focus.at { note = " <span class=\"muted\">(\(whenText(f.incident, d, at: at).html))</span>" }
                b += incidentItemHTML(f.number, f.incident, t0, issues: placement.issues(under: f.number), note: note)
            }
            b += "</ol>\n"
            if found.count > MeetingReport.focusIncidentsShown {
                b += "<p class=\"muted\">and \(found.count - MeetingReport.focusIncidentsShown) more in " + HTMLPage.link("#incidents", "Incidents") + ".</p>\n"
            }
        }
        b += "<p class=\"muted\">" + HTMLPage.link("#" + participantAnchor(focus.uid), "\(focus.uid.html)'s \(charted.contains(focus.uid) ? "quality charts" : "row")") + "</p>\n"
        return b + "</section>\n"
    }

    /// `{"uid", "at", "incidents": [{"number", "distanceMs", "offsetMs", …incident}]}`,
    /// in the section's order; `distanceMs` (how far from T, never
    /// negative) and `offsetMs` (the same, negative for an incident over
    /// before T) are null without `at`.
    func focusJSON(_ focus: ReportFocus) -> JSON {
        .object([
            ("uid", .string(focus.uid)), ("at", .optional(focus.at)),
            ("incidents", .array(focusIncidents(focus).map { f in
                guard case .object(let fields) = f.incident.json else { return f.incident.json }
                let offset = f.distanceMs.map { d in focus.at.map { f.incident.startTs > $0 ? d : -d } ?? d }
                return .object([("number", .int(Int64(f.number))), ("distanceMs", .optional(f.distanceMs)), ("offsetMs", .optional(offset))] + fields)
            })),
        ])
    }
}

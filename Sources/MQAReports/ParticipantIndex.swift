import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// The participant page of a report site (`DIR/participants.html`): every
/// participant with each meeting they were in, newest first, linking that
/// meeting's page at the participant's charts; the fleet page links it.
/// What `mqa meetings --uid U` lists, for readers of the site.
public struct ParticipantIndex: Sendable {
    /// The page's name in the site, beside `index.html`.
    public static let fileName = "participants.html"

    /// One participant in one meeting.
    public struct Visit: Sendable, Equatable {
        public var uid: String
        public var header: MeetingHeader
        /// The meeting's page, relative to the index.
        public var file: String
        public var impact: ParticipantImpact
        /// Incidents that concern the participant (theirs, or a track's
        /// they stalled in).
        public var incidents: Int
        /// The participant's place on the meeting page (charts, or row).
        public var anchor: String
    }

    public var visits: [Visit] = []
    public var display = TimeDisplay()
    /// The config the impacts and incidents were found under, said on
    /// the page where it is not the defaults.
    public var config = TierConfig()

    public init(display: TimeDisplay = TimeDisplay()) { self.display = display }

    /// Adds every participant of `report`, whose page is `file`.
    public mutating func add(_ report: MeetingReport, file: String) {
        for p in report.impacts {
            let n = report.incidents.count { $0.uid == p.uid || $0.evidence.subscribers.contains(p.uid) }
            visits.append(Visit(uid: p.uid, header: report.header, file: file, impact: p, incidents: n,
                                anchor: report.participantAnchor(p.uid)))
        }
    }

    /// A participant's row group on the page.
    static func anchor(_ uid: String) -> String { AnchorID.make("u", uid) }

    /// The page: one table, grouped by uid (sorted), each meeting newest first.
    public var html: String {
        let byUid = Dictionary(grouping: visits, by: \.uid)
        let uids = byUid.keys.sorted()
        let meetings = Set(visits.map(\.header.meeting)).count
        var b = "<nav class=\"crumbs\">" + HTMLPage.link(SitePages.index, "← All meetings (fleet)") + "</nav>\n"
        b += "<header>\n<h1>Participants</h1>\n<p class=\"sub\">\(uids.count) participant\(uids.count == 1 ? "" : "s") in "
        b += "\(meetings) meeting\(meetings == 1 ? "" : "s"); each meeting links the participant's charts on its page. "
        b += "Start times are \(display.zone.map { "UTC and \($0.identifier)" } ?? "UTC").</p>\n"
        b += ConfigNote.htmlParagraph(config) + "</header>\n"
        var t = ReportTable(headers: ["participant", "meeting", "start", "title", "impact", "incidents"], numeric: [5])
        for uid in uids {
            let mine = byUid[uid]!.sorted { ($0.header.start ?? .min, $1.header.meeting) > ($1.header.start ?? .min, $0.header.meeting) }
            for (k, v) in mine.enumerated() {
                let who: ReportCell = k == 0 ? .markup(html: "<strong>\(uid.html)</strong> <span class=\"muted\">(\(mine.count))</span>", text: uid)
                    : .empty(shown: "")
                let id = HTMLPage.code(v.header.meeting)
                t.add([who, .markup(html: HTMLPage.link(v.file + "#" + v.anchor, id), text: v.header.meeting),
                       .text(v.header.start.map(display.dateTime) ?? "—"), .text(v.header.title ?? "—"),
                       .text(IncidentText.impact(v.impact)), .int(v.incidents)],
                      id: k == 0 ? ParticipantIndex.anchor(uid) : nil)
            }
        }
        b += t.html
        return HTMLPage.document(title: "mqa participants", body: b)
    }
}

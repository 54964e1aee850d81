import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// The pages of one meeting in a report site (`report meeting --all
/// --format html --out DIR`): `DIR/<meeting file>` and one page per track
/// in `DIR/tracks/`, linked both ways; `DIR/index.html`, the fleet page,
/// links every meeting (`BatchWriter.writeIndex`).
public enum SitePages {
    /// The fleet page's name in the site.
    public static let index = "index.html"

    /// Renders the meeting page (linking `index.html` and its tracks) and
    /// its track pages (linking back to the meeting's row of the track and
    /// to the index). `trackFiles` maps each of `report.trackIDs` to its
    /// `tracks/…` name.
    public static func render(_ report: MeetingReport, meetingFile: String, trackFiles: [String: String])
        -> (meeting: String, tracks: [(name: String, text: String)])
    {
        let reports = TrackReport.all(meeting: report)
        let page = report.html(links: MeetingLinks(index: index, tracks: trackFiles), verdicts: reports.mapValues(\.verdict))
        return (page, trackPages(report, reports, meetingFile: meetingFile, trackFiles: trackFiles))
    }

    /// As `render`'s meeting page, written to `out` piece by piece (a
    /// 2,000-viewer meeting's is 171 MB); `reports` are its tracks'
    /// (`TrackReport.all`). A store that fails while its charts are read
    /// fails `out`.
    public static func write(_ report: MeetingReport, _ reports: [String: TrackReport], trackFiles: [String: String],
                             to out: OutputSink) {
        report.writeHTML(links: MeetingLinks(index: index, tracks: trackFiles), verdicts: reports.mapValues(\.verdict), to: out)
    }

    /// The track pages, each linking back to its row in the meeting page.
    public static func trackPages(_ report: MeetingReport, _ reports: [String: TrackReport], meetingFile: String,
                                  trackFiles: [String: String]) -> [(name: String, text: String)] {
        var tracks: [(name: String, text: String)] = []
        for id in report.trackIDs {
            guard let name = trackFiles[id], let track = reports[id] else { continue }
            // A track page is one folder down.
            let anchor = track.publishers.first.map { "#" + AnchorID.track($0, id) } ?? ""
            let links = TrackLinks(index: "../" + index, meeting: "../" + meetingFile + anchor)
            tracks.append((name, track.html(links: links)))
        }
        return tracks
    }
}

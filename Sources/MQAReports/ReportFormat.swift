import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// The output formats of every report (`--format`).
public enum ReportFormat: String, Sendable, CaseIterable {
    /// Aligned Markdown tables, readable in a terminal.
    case md
    /// The shapes of `Docs/cli.md`.
    case json
    /// One row per participant/track/meeting, for spreadsheets.
    case csv
    /// One self-contained XHTML-compatible page with inline CSS and SVG.
    case html

    /// The file extension of a report in this format.
    public var fileExtension: String { rawValue }
}

/// A report that cannot be produced from what the store holds.
public enum ReportError: Error, CustomStringConvertible, Equatable {
    /// The meeting has no subscription of that track.
    case noTrack(track: String, meeting: String)
    /// Dumps of the meeting give that id to different senders' tracks.
    case ambiguousTrack(track: String, meeting: String, senders: [String])
    /// A batch output file or directory could not be written.
    case unsafePath(String)
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .noTrack(let track, let meeting):
            "no subscription of track \"\(track)\" in meeting \"\(meeting)\" (`mqa report meeting \(meeting)` lists the tracks)"
        case .ambiguousTrack(let track, let meeting, let senders):
            "track \"\(track)\" of meeting \"\(meeting)\" is a dump's own id for several senders' tracks: "
                + senders.map { "\"\($0)\"" }.joined(separator: ", ") + "; give one of those"
        case .unsafePath(let what): "refusing to write \(what)"
        case .cannotWrite(let path, let reason): "\(path): cannot write: \(reason)"
        }
    }
}

/// A report that renders in every format; `render` picks one, and `write`
/// sends it to an output.
public protocol RenderedReport {
    var markdown: String { get }
    var json: JSON { get }
    var csv: String { get }
    var html: String { get }
    /// Writes the report in `format` to `out`: the bytes of `render`. A
    /// report that can grow with the square of a meeting's size streams
    /// them rather than holding the whole text.
    func write(_ format: ReportFormat, to out: OutputSink)
}

extension RenderedReport {
    public func write(_ format: ReportFormat, to out: OutputSink) { out.write(render(format)) }

    /// The report in `format`.
    public func render(_ format: ReportFormat) -> String {
        switch format {
        case .md: markdown
        case .json: json.rendered(pretty: true) + "\n"
        case .csv: csv
        case .html: html
        }
    }
}

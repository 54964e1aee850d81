import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// Where the other pages of a report site are, as seen from one page. A
/// page rendered without links (`mqa report meeting ID --format html`) is a
/// single document; in a site (`--all --format html --out DIR`) the fleet
/// page is `index.html`, meeting pages sit beside it and track pages in
/// `tracks/`. Every target is a file name the batch made safe.
public struct MeetingLinks: Sendable, Equatable {
    /// The fleet page, relative to the meeting page.
    public var index: String
    /// Track id → its page, relative to the meeting page.
    public var tracks: [String: String]

    public init(index: String, tracks: [String: String]) {
        self.index = index
        self.tracks = tracks
    }
}

/// The links of a track page in a site.
public struct TrackLinks: Sendable, Equatable {
    /// The fleet page and the meeting page, relative to the track page.
    public var index: String
    public var meeting: String

    public init(index: String, meeting: String) {
        self.index = index
        self.meeting = meeting
    }
}

/// Fragment ids for the anchors of a page, made from ids in the logs
/// (arbitrary text): a prefix, the id with every character outside
/// `[A-Za-z0-9_-]` replaced, cut to 40 characters, and the id's hash, so
/// two ids never share an anchor and none needs escaping in a URL.
enum AnchorID {
    static func make(_ prefix: String, _ id: String) -> String {
        var stem = ""
        for scalar in id.unicodeScalars.prefix(40) {
            let ok = (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z")
                || (scalar >= "0" && scalar <= "9") || scalar == "_" || scalar == "-"
            stem.unicodeScalars.append(ok ? scalar : "_")
        }
        return "\(prefix)-\(stem)-\(SafeFileName.hash(id))"
    }

    /// A participant's row in the Participants table.
    static func participant(_ uid: String) -> String { make("p", uid) }
    /// A participant's quality charts.
    static func charts(_ uid: String) -> String { make("q", uid) }
    /// A published track's row in the Tracks table.
    static func track(_ publisher: String, _ track: String) -> String { make("t", publisher + "\u{0}" + track) }
    /// Incident number `n` (1-based, in start order).
    static func incident(_ n: Int) -> String { "i-\(n)" }
}

import Foundation

/// Who wrote a dump, and in which room: read from rtcstats
/// `connectionInfo` and `identity` lines, or a webrtc-internals page URL
/// and `UserAgent` (Docs/import.md, "Who is who").
struct DumpIdentity: Equatable {
    /// The room: what the page URL names (`DumpIdentity.room(inURL:)`),
    /// else `confName`.
    var roomFromURL: String?
    var confName: String?
    var userID: String?
    var displayName: String?
    var endpointID: String?
    var userAgent: String?
    /// The client fields from `navigator.userAgentData` (Chrome's format 3
    /// rtcstats dump carries no user agent text), where no text is given.
    var userAgentData: UserAgentClient?

    var room: String? { roomFromURL ?? confName }
    /// The client fields: from the user agent text, else its data.
    var client: UserAgentClient? { userAgent.map(UserAgentClient.init) ?? userAgentData }

    /// The first usable value of each field wins: a dump that names its
    /// user again later (a reconnect) names the same person.
    mutating func note(url: String?) {
        guard roomFromURL == nil, let url, let room = DumpIdentity.room(inURL: url) else { return }
        roomFromURL = room
    }

    mutating func note(confName c: String?, userID u: String?, displayName d: String?, endpointID e: String?) {
        func usable(_ s: String?) -> String? {
            guard let s, DumpIdentity.fits(s) else { return nil }
            return s
        }
        confName = confName ?? usable(c)
        userID = userID ?? usable(u)
        displayName = displayName ?? usable(d)
        endpointID = endpointID ?? usable(e)
    }

    mutating func note(userAgent ua: String?) {
        guard userAgent == nil, let ua, !ua.isEmpty else { return }
        userAgent = ua
    }

    /// 1–256 characters that are not all blank: what the event log takes.
    static func fits(_ s: String) -> Bool {
        let n = s.unicodeScalars.count
        return n >= 1 && n <= 256 && s.contains { !$0.isWhitespace }
    }

    /// The room a page URL names: a query parameter that says so
    /// (`call.html?room=standup&me=A` → `standup`), else the last path
    /// segment (`https://meet.jit.si/Standup` → `Standup`).
    ///
    /// Pages of many apps are one file that takes the room as a parameter;
    /// their last segment (`call.html`) named every call alike, so dumps
    /// of different calls in one store made one meeting of them all.
    static func room(inURL url: String) -> String? {
        roomParameter(url) ?? lastPathSegment(url)
    }

    /// Query parameters that name a room, strongest first (compared in
    /// lower case, `_` and `-` left out: `room_id`, `roomId` and `room-id`
    /// alike). Names as loose as `channel` or `conf` are left out: apps
    /// use them for release channels and config files.
    static let roomParameters = [
        "room", "roomname", "roomid", "meeting", "meetingname", "meetingid", "conference", "conferencename",
    ]

    /// The value of the strongest of `roomParameters` the query has with a
    /// usable value (`+` a space, `%xx` decoded); nil when there is none.
    /// The query ends at `#`: what follows is the fragment, the page's own.
    static func roomParameter(_ url: String) -> String? {
        let beforeFragment = url.prefix { $0 != "#" }
        guard let mark = beforeFragment.firstIndex(of: "?") else { return nil }
        var best: (rank: Int, value: String)?
        for pair in beforeFragment[beforeFragment.index(after: mark)...].split(separator: "&") {
            guard let eq = pair.firstIndex(of: "=") else { continue }
            let name = pair[..<eq].lowercased().filter { $0 != "_" && $0 != "-" }
            guard let rank = roomParameters.firstIndex(of: name), rank < (best?.rank ?? .max) else { continue }
            let raw = pair[pair.index(after: eq)...].replacingOccurrences(of: "+", with: " ")
            let value = decoded(raw)
            if usableRoom(value) { best = (rank, value) }
        }
        return best?.value
    }

    /// `%xx` decoded, unless that fails or makes a control character (a
    /// meeting id with a NUL or a newline could not be named on a command
    /// line): then the text as the URL has it.
    static func decoded(_ text: String) -> String {
        guard let plain = text.removingPercentEncoding,
              !plain.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        else { return text }
        return plain
    }

    /// `https://meet.example//Room?x=1#y` → `Room`; nil without a path.
    static func lastPathSegment(_ url: String) -> String? {
        var s = Substring(url)
        if let cut = s.firstIndex(where: { $0 == "?" || $0 == "#" }) { s = s[..<cut] }
        if let scheme = s.range(of: "://") { s = s[scheme.upperBound...] } else { return nil }
        // The host is not a room.
        guard let slash = s.firstIndex(of: "/") else { return nil }
        let path = s[slash...].split(separator: "/", omittingEmptySubsequences: true)
        guard let last = path.last else { return nil }
        let room = decoded(String(last))
        return usableRoom(room) ? room : nil
    }

    /// A room that makes a meeting id: `rtc-` and the room within the
    /// event log's 256 characters.
    static func usableRoom(_ room: String) -> Bool {
        fits(room) && room.unicodeScalars.count <= 252
    }
}

extension UserAgentClient {
    /// From `navigator.userAgentData` (`{"brands": [{"brand", "version"}],
    /// "platform": "Linux"}`): the platform, and the browser brand with its
    /// major version (Chromium as Chrome, as its user agent text says).
    /// No OS version: the data gives none without a request for more.
    init?(userAgentData data: [String: Any]) {
        let platforms = ["Windows": "windows", "macOS": "macos", "Linux": "linux", "Chrome OS": "linux", "Android": "android", "iOS": "ios"]
        var device: String? = nil
        var rank = 0
        for case let entry as [String: Any] in (data["brands"] as? [Any]) ?? [] {
            guard let brand = entry["brand"] as? String, let version = entry["version"] as? String else { continue }
            // Brands are listed with a made-up one ("Not:A-Brand") in front.
            let known: [(String, String, Int)] = [("Microsoft Edge", "Edge", 3), ("Opera", "Opera", 3), ("Google Chrome", "Chrome", 2), ("Chromium", "Chrome", 1)]
            guard let match = known.first(where: { $0.0 == brand }), match.2 > rank else { continue }
            let major = version.prefix { $0 != "." }
            device = major.isEmpty ? match.1 : "\(match.1) \(major)"
            rank = match.2
        }
        let platform = (data["platform"] as? String).map { platforms[$0] ?? "web" }
        guard platform != nil || device != nil else { return nil }
        self.init(platform: platform, osVersion: nil, device: device)
    }
}

/// The client fields (event log 1.2) a browser's user agent gives:
/// the operating system as the platform, its version, and the browser
/// with its major version as the device.
struct UserAgentClient: Equatable {
    var platform: String?
    var osVersion: String?
    var device: String?

    init(platform: String?, osVersion: String?, device: String?) {
        self.platform = platform
        self.osVersion = osVersion
        self.device = device
    }

    init(_ ua: String) {
        func after(_ marker: String, until stops: Set<Character>) -> String? {
            guard let r = ua.range(of: marker) else { return nil }
            let v = ua[r.upperBound...].prefix { !stops.contains($0) }
            return v.isEmpty ? nil : String(v)
        }
        let stops: Set<Character> = [";", ")", " "]
        if ua.contains("iPhone") || ua.contains("iPad") || ua.contains("iPod") {
            platform = "ios"
            osVersion = after("OS ", until: stops).map { $0.replacingOccurrences(of: "_", with: ".") }
        } else if ua.contains("Android") {
            platform = "android"
            osVersion = after("Android ", until: stops)
        } else if ua.contains("Windows") {
            platform = "windows"
            osVersion = after("Windows NT ", until: stops)
        } else if ua.contains("Mac OS X") || ua.contains("Macintosh") {
            platform = "macos"
            osVersion = after("Mac OS X ", until: stops).map { $0.replacingOccurrences(of: "_", with: ".") }
        } else if ua.contains("Linux") || ua.contains("X11") || ua.contains("CrOS") {
            platform = "linux"
        } else {
            platform = "web"
        }
        // Order matters: Edge and Opera say Chrome too, Chrome says Safari.
        // Edge on Android says `EdgA/`, on iOS `EdgiOS/` (and Safari's
        // `Version/`); Opera on iOS `OPT/`.
        let browsers: [(marker: String, name: String)] = [
            ("Edg/", "Edge"), ("EdgA/", "Edge"), ("EdgiOS/", "Edge"), ("OPR/", "Opera"), ("OPT/", "Opera"),
            ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"),
            ("CriOS/", "Chrome"), ("Chrome/", "Chrome"), ("Version/", "Safari"),
        ]
        for b in browsers {
            guard let v = after(b.marker, until: stops) else { continue }
            if b.name == "Safari" && !ua.contains("Safari") { continue }
            let major = v.prefix { $0 != "." }
            device = major.isEmpty ? b.name : "\(b.name) \(major)"
            break
        }
        if let v = osVersion, !DumpIdentity.fits(v) { osVersion = nil }
    }
}

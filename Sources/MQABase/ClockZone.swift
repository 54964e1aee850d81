import Foundation

/// A time zone for showing and reading wall-clock times (`--tz ZONE`,
/// `MQA_TZ`): an IANA name (`Australia/Sydney`) with its offsets from the
/// system's tz database, or UTC. Every figure stays UTC ms; a zone only
/// changes how an instant is written or how a typed time is read.
public struct ClockZone: Sendable, Equatable {
    /// The IANA name as given (`Europe/Berlin`), or `UTC`.
    public let identifier: String
    private let zone: TimeZone?

    /// UTC: what every report shows when no zone is given.
    public static let utc = ClockZone(identifier: "UTC", zone: nil)

    private init(identifier: String, zone: TimeZone?) {
        self.identifier = identifier
        self.zone = zone
    }

    /// The zone named `name`, or nil when the tz database has no such zone.
    /// A name with no `/` (`CET`, `EST5EDT`, `Zulu`) is taken only when the
    /// system's tz database has it: Foundation also reads abbreviations
    /// the database does not hold (`PST`, `IST`, `BST`), which mean
    /// different zones in different places, and those are refused. The
    /// database's own short names are its: `EST` is UTC−5 all year (US
    /// Eastern time is `America/New_York`).
    public init?(_ name: String) {
        if name == "UTC" || name == "Etc/UTC" || name == "GMT" || name == "Z" {
            self = .utc
            return
        }
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains(".."),
              name.contains("/") || ClockZone.databaseHolds(name),
              let zone = TimeZone(identifier: name)
        else { return nil }
        self.init(identifier: name, zone: zone)
    }

    /// Whether the system's tz database has a zone file of that name. Not
    /// `$TZDIR`'s: Foundation reads an abbreviation it does not hold as an
    /// abbreviation wherever the file was found (a `TZDIR` holding a file
    /// `IST` made `--tz IST` India's).
    static func databaseHolds(_ name: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/" + name, isDirectory: &isDirectory)
            && !isDirectory.boolValue
    }

    public var isUTC: Bool { zone == nil }

    public static func == (a: ClockZone, b: ClockZone) -> Bool { a.identifier == b.identifier }

    /// Seconds east of UTC at the instant `ms`.
    public func offsetSeconds(at ms: Int64) -> Int {
        guard let zone else { return 0 }
        return zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    /// The instant `ms` as wall-clock ms (the local time read as if UTC).
    public func local(_ ms: Int64) -> Int64 { ms + Int64(offsetSeconds(at: ms)) * 1000 }

    /// The instant at which the wall clock shows `localMs` (a local time
    /// written as ms since 1970-01-01T00:00 local). Where the clocks go back
    /// and a wall time happens twice, the first one; where they go forward
    /// and it never happens, the instant it would have been by the offset
    /// before the change (02:30 in a spring-forward gap is 03:30 after it),
    /// as `date`(1) and Foundation's calendar do.
    public func instant(local localMs: Int64) -> Int64 { instants(local: localMs)[0] }

    /// Every instant whose wall clock reads `localMs`, earliest first: two
    /// in the hour repeated when clocks go back, one in a gap (the instant
    /// the clock would read it at on its earlier offset), else one.
    public func instants(local localMs: Int64) -> [Int64] {
        guard zone != nil else { return [localMs] }
        // Zones change their offset at most once in any two days, so the
        // offsets a day either side hold every candidate.
        let day: Int64 = 86_400_000
        let before = Int64(offsetSeconds(at: localMs - day)) * 1000
        let after = Int64(offsetSeconds(at: localMs + day)) * 1000
        let valid = Set([localMs - before, localMs - after].filter { local($0) == localMs }).sorted()
        return valid.isEmpty ? [localMs - before] : valid
    }

    /// `+11:00`, `-03:30`, `+00:00` at the instant `ms`.
    public func offsetText(at ms: Int64) -> String {
        let s = offsetSeconds(at: ms)
        let a = abs(s) / 60
        return (s < 0 ? "-" : "+") + Self.pad(a / 60) + ":" + Self.pad(a % 60)
    }

    /// `14:31:05`: the wall clock at `ms`, whole seconds (truncated).
    public func clock(_ ms: Int64) -> String {
        let l = Self.floorMod(local(ms), 86_400_000) / 1000
        return Self.pad(Int(l / 3600)) + ":" + Self.pad(Int(l / 60 % 60)) + ":" + Self.pad(Int(l % 60))
    }

    /// `2026-11-29 14:31:05`: the local date and wall clock at `ms`.
    public func dateTime(_ ms: Int64) -> String {
        let l = local(ms)
        let (y, m, d) = Time.civil(fromDays: Self.floorDiv(l, 86_400_000))
        return "\(y)-\(Self.pad(Int(m)))-\(Self.pad(Int(d))) " + ClockZone.utc.clock(l)
    }

    /// The local calendar day of `ms`, as days since 1970-01-01.
    public func day(of ms: Int64) -> Int64 { Self.floorDiv(local(ms), 86_400_000) }

    /// Midnight local time starting day `day` (days since 1970-01-01).
    public func midnight(day: Int64) -> Int64 { instant(local: day * 86_400_000) }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
    static func floorMod(_ a: Int64, _ b: Int64) -> Int64 { a - floorDiv(a, b) * b }
    static func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}

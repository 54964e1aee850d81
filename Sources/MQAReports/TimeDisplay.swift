import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// How a report writes instants for people: UTC always, and with a zone
/// (`--tz ZONE`, `MQA_TZ`) the local wall clock beside it. JSON and CSV
/// keep integer ms and never change with the zone; md and html show what
/// this type writes. Without a zone the output is what it was before
/// zones existed, byte for byte, so reports stay the same on every machine.
public struct TimeDisplay: Sendable, Equatable {
    /// The local zone; nil shows UTC only.
    public var zone: ClockZone?
    /// Wall clocks carry their date (`2022-01-11 00:31:21`): set for a
    /// meeting that spans more than one day, where `00:31:21` alone names
    /// an instant on any of them.
    public var dated = false
    /// The UTC beside a zone's clock carries its date: set when the
    /// meeting spans more than one UTC day, whatever it does locally.
    public var utcDated = false

    /// Dates the clocks, and the UTC beside them, where `start` and `end`
    /// (a meeting's) fall on different days of each.
    public mutating func date(forSpan start: Int64, _ end: Int64) {
        dated = clockZone.day(of: start) != clockZone.day(of: end)
        utcDated = ClockZone.utc.day(of: start) != ClockZone.utc.day(of: end)
    }

    /// `zone` UTC counts as none: UTC is shown anyway.
    public init(zone: ClockZone? = nil) { self.zone = zone.flatMap { $0.isUTC ? nil : $0 } }

    /// The zone wall clocks are read in: the local one, else UTC.
    var clockZone: ClockZone { zone ?? .utc }

    /// `2026-11-29T03:19:57.125Z`, with a zone
    /// `2026-11-29T03:19:57.125Z (14:19:57 Australia/Sydney, +11:00)`;
    /// the local date is named when it is not the UTC date.
    public func timestamp(_ ms: Int64) -> String {
        ReportText.timestamp(ms) + localSuffix(ms)
    }

    /// `2026-11-29 03:19:57 UTC`, with a zone
    /// `2026-11-29 03:19:57 UTC (14:19:57 Australia/Sydney, +11:00)`.
    public func dateTime(_ ms: Int64) -> String {
        ReportText.dateTime(ms) + " UTC" + localSuffix(ms)
    }

    /// ` (14:19:57 Australia/Sydney, +11:00)`, or with a different local
    /// date ` (2026-11-30 09:19:57 Australia/Sydney, +11:00)`; empty in UTC.
    func localSuffix(_ ms: Int64) -> String {
        guard let zone else { return "" }
        let sameDay = zone.day(of: ms) == ClockZone.utc.day(of: ms)
        let local = sameDay ? zone.clock(ms) : zone.dateTime(ms)
        return " (\(local) \(zone.identifier), \(zone.offsetText(at: ms)))"
    }

    /// `14:31:05`: the wall clock in the zone (UTC without one);
    /// `2022-01-11 14:31:05` when `dated`.
    public func clock(_ ms: Int64) -> String { dated ? clockZone.dateTime(ms) : clockZone.clock(ms) }

    /// `14:31:05 (+11:03)`: the wall clock and the offset from the
    /// meeting's start, what incidents are written as; with a zone, UTC
    /// first in the parentheses (`14:31:05 (03:31:05 UTC, +11:03)`).
    /// After a clock change the zone's offset follows the clock (`01:30:01
    /// -05:00 (+1:10:01)`), as in `IncidentText.window`: the page names the
    /// meeting start's.
    public func clockAndOffset(_ ms: Int64, from origin: Int64) -> String {
        "\(clock(ms))\(offsetNote(at: ms, from: origin)) (\(utcNote(ms))\(ReportText.offset(ms, from: origin, milliseconds: false)))"
    }

    /// `03:31:05 UTC, ` (or `03:31:05–03:31:43 UTC, ` to `end`) to open
    /// the parentheses after a zone's wall clock: cli.md puts local times
    /// next to UTC, for the server logs an incident is held against.
    /// Empty without a zone, where the wall clock is UTC already.
    func utcNote(_ ms: Int64, to end: Int64? = nil) -> String {
        guard zone != nil else { return "" }
        let dated = utcDated
        func utc(_ t: Int64) -> String { dated ? ClockZone.utc.dateTime(t) : ClockZone.utc.clock(t) }
        return utc(ms) + (end.map { "–" + utc($0) } ?? "") + " UTC, "
    }

    /// ` -05:00` where the zone's offset at `ms` is not the one at `origin`
    /// (the meeting's start, which the page names); empty otherwise and in UTC.
    func offsetNote(at ms: Int64, from origin: Int64) -> String {
        guard let zone, zone.offsetText(at: ms) != zone.offsetText(at: origin) else { return "" }
        return " " + zone.offsetText(at: ms)
    }

    /// What the wall clocks of a page are: `UTC`, or
    /// `Australia/Sydney (+11:00)` at the instant `ms`.
    public func clockName(at ms: Int64) -> String {
        guard let zone else { return "UTC" }
        return "\(zone.identifier) (\(zone.offsetText(at: ms)))"
    }
}

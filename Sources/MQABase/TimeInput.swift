/// A time as a user types it (`--since`, `--until`, `--at`), read before
/// the zone, the clock and the meeting it may depend on are known; a
/// command resolves it with `resolve(zone:now:near:)`.
///
/// The forms, each a unit test in `TimeInputTests`:
///
/// | typed | means |
/// |---|---|
/// | `2026-11-29T14:05:00Z`, `…+11:00`, `2026-11-29T14:05Z` | that instant (RFC 3339, any offset; seconds may be left out) |
/// | `2026-11-29T14:05`, `2026-11-29 14:05:30` | that wall-clock time in the zone |
/// | `2026-11-29` | midnight starting that day in the zone |
/// | `14:05`, `14:05:30` | that wall-clock time inside the meeting, on any of its dates (`report meeting`, and each meeting's for `meetings --at`), else today, in the zone |
/// | `-2h`, `-90m`, `-1h30m`, `-45s`, `-3d`, `-1w`, `+15m` | now plus or minus that much |
/// | `now`, `today`, `yesterday` | now; midnight starting today or yesterday in the zone |
/// | `1795946400000` | that instant in epoch ms (13 digits), as every JSON output gives times |
///
/// The zone is `--tz`/`MQA_TZ`, else UTC. A time with an offset or `Z`
/// never depends on the zone.
public enum TimeInput: Sendable, Equatable {
    /// An RFC 3339 instant, ms since the epoch.
    case instant(Int64)
    /// A wall-clock date and time (ms since 1970-01-01 local), no offset.
    case local(Int64)
    /// A wall-clock time of day, ms after local midnight, on a day the
    /// command picks.
    case timeOfDay(Int64)
    /// Now plus this many ms (negative: ago).
    case relative(Int64)
    /// Midnight starting the day `days` after today (0 today, -1 yesterday).
    case dayFromToday(Int64)

    /// What `--help` and errors say the forms are.
    public static let forms = "RFC 3339 (2026-11-29T14:05:00Z), a date (2026-11-29), a time of day (14:05), "
        + "relative (-2h, -30m, now, today, yesterday), or epoch ms (1795946400000)"

    /// The form of `text`, or nil when it is none of them.
    public static func parse(_ text: String) -> TimeInput? {
        let t = text.trimmingSpaces
        switch t.lowercased() {
        case "now": return .relative(0)
        case "today": return .dayFromToday(0)
        case "yesterday": return .dayFromToday(-1)
        default: break
        }
        // A date or date-time without an offset first: `Time.parse` reads a
        // bare date as midnight UTC, which is right only without a zone.
        if let ms = localDateTime(t) { return .local(ms) }
        if let ms = Time.parse(t) ?? Time.parse(secondsAdded(t)) { return .instant(ms) }
        if let ms = epochMilliseconds(t) { return .instant(ms) }
        if let ms = timeOfDay(t) { return .timeOfDay(ms) }
        if let ms = relative(t) { return .relative(ms) }
        return nil
    }

    /// The instant meant, given the zone, the time now, and for a time of
    /// day the span it should fall in (a meeting's start and end).
    ///
    /// A time of day with `near` is the first instant inside the span
    /// whose wall clock reads it: on any local date the span touches (a
    /// meeting running past midnight, or for days), and either pass of an
    /// hour the clocks repeat. When none is inside, the reading on one of
    /// those dates nearest the span (to say how far before or after it T
    /// is); without `near`, today.
    public func resolve(zone: ClockZone, now: Int64, near span: (start: Int64, end: Int64)? = nil) -> Int64 {
        switch self {
        case .instant(let ms): return ms
        case .local(let ms): return zone.instant(local: ms)
        case .relative(let delta): return now + delta
        case .dayFromToday(let days): return zone.midnight(day: zone.day(of: now) + days)
        case .timeOfDay(let ms):
            guard let span else { return zone.instant(local: zone.day(of: now) * 86_400_000 + ms) }
            let firstDay = zone.day(of: span.start)
            let lastDay = max(firstDay, zone.day(of: span.end))
            // Readings grow with the date, so the search stops at the first
            // one past the end (a day or two on, however long the span). A
            // time the clock skipped (a spring gap) counts only when no real
            // reading is inside.
            var skipped: Int64?
            search: for day in firstDay...lastDay {
                for t in zone.instants(local: day * 86_400_000 + ms) where t >= span.start {
                    if t > span.end { break search }
                    if zone.local(t) == day * 86_400_000 + ms { return t }
                    skipped = skipped ?? t
                }
            }
            if let skipped { return skipped }
            // In none: the reading on the meeting's dates nearest the span,
            // to say how far before or after it T is (a span with none
            // inside is under a day). Only its dates: the spec reads a time
            // of day "on the meeting's date", so 23:00 for a meeting from
            // 00:00 to 01:00 is that evening, not the evening before.
            func distance(_ t: Int64) -> Int64 { t < span.start ? span.start - t : t > span.end ? t - span.end : 0 }
            var nearest = zone.instant(local: firstDay * 86_400_000 + ms)
            for day in firstDay...min(lastDay, firstDay + 2) {
                for t in zone.instants(local: day * 86_400_000 + ms) where distance(t) < distance(nearest) { nearest = t }
            }
            return nearest
        }
    }

    /// Whether the instant depends on which meeting it is about.
    public var isTimeOfDay: Bool { if case .timeOfDay = self { true } else { false } }

    /// A time of day as `14:05:30` (`.250` with ms); nil for the other forms.
    public var clockText: String? {
        guard case .timeOfDay(let ms) = self else { return nil }
        // ms after midnight read as a UTC instant of 1970-01-01: its clock.
        return ClockZone.utc.clock(ms) + (ms % 1000 == 0 ? "" : "." + String(String(ms % 1000 + 1000).dropFirst()))
    }

    // MARK: the forms

    /// `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fff]]` (also with a space) in
    /// local time: ms since 1970-01-01T00:00 local.
    static func localDateTime(_ t: String) -> Int64? {
        let b = Array(t.utf8)
        guard b.count >= 10, let y = number(b, 0, 4), b[4] == 0x2D, let m = number(b, 5, 2), b[7] == 0x2D,
            let d = number(b, 8, 2), (1...12).contains(m), d >= 1, d <= RFC3339.daysIn(month: m, year: y)
        else { return nil }
        var ms = Int64(RFC3339.daysFromCivil(year: y, month: m, day: d)) * 86_400_000
        if b.count == 10 { return ms }
        guard b[10] == 0x54 || b[10] == 0x74 || b[10] == 0x20, let tod = timeOfDay(String(decoding: b[11...], as: UTF8.self))
        else { return nil }
        ms += tod
        return ms
    }

    /// RFC 3339 with seconds, where `t` is one without them
    /// (`2026-11-29T14:05Z`, `…14:05+01:00`), as people type an offset;
    /// `t` itself otherwise.
    static func secondsAdded(_ t: String) -> String {
        let b = Array(t.utf8)
        guard b.count >= 17, b[4] == 0x2D, b[7] == 0x2D, b[13] == 0x3A,
            [0x5A, 0x7A, 0x2B, 0x2D].contains(b[16])  // Z z + -
        else { return t }
        return String(decoding: b[..<16] + Array(":00".utf8) + b[16...], as: UTF8.self)
    }

    /// Epoch ms of 13 digits (2001 to 2286), the form JSON outputs give a
    /// time in, so that a `start` pastes back into `--since`. Fewer digits
    /// are refused: 10 are more likely epoch seconds than 1970.
    static func epochMilliseconds(_ t: String) -> Int64? {
        // A leading 0 would be 1970 again (`0001795946400`, seconds padded).
        guard t.utf8.count == 13, t.utf8.first != 0x30, t.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(t)
    }

    /// `HH:MM`, `HH:MM:SS`, `HH:MM:SS.fff` (24-hour): ms after midnight.
    static func timeOfDay(_ t: String) -> Int64? {
        let b = Array(t.utf8)
        guard b.count == 5 || b.count >= 8, let h = number(b, 0, 2), b[2] == 0x3A, let m = number(b, 3, 2), h <= 23, m <= 59
        else {
            // `9:05` is a time of day too.
            if b.count == 4, b[1] == 0x3A, let h = number(b, 0, 1), let m = number(b, 2, 2), m <= 59 { return Int64(h * 60 + m) * 60_000 }
            return nil
        }
        var ms = Int64(h * 60 + m) * 60_000
        if b.count == 5 { return ms }
        guard b[5] == 0x3A, let s = number(b, 6, 2), s <= 59 else { return nil }
        ms += Int64(s) * 1000
        if b.count == 8 { return ms }
        guard b[8] == 0x2E, b.count > 9, b.count <= 12, let f = number(b, 9, b.count - 9) else { return nil }
        var frac = f
        for _ in (b.count - 9)..<3 { frac *= 10 }
        return ms + Int64(frac)
    }

    /// `-2h`, `+15m`, `-1h30m`, `-1d12h`, `-90s`, `-1w`: signed, one or
    /// more number-unit pairs, units w d h m s, each at most once, in that
    /// order. The sign is required, so `2h` is not mistaken for a time.
    static func relative(_ t: String) -> Int64? {
        let b = Array(t.lowercased().utf8)
        guard b.count >= 3, b[0] == 0x2D || b[0] == 0x2B else { return nil }
        let units: [(UInt8, Int64)] = [(0x77, 604_800_000), (0x64, 86_400_000), (0x68, 3_600_000), (0x6D, 60_000), (0x73, 1000)]
        var i = 1, total: Int64 = 0, nextUnit = 0
        while i < b.count {
            var v: Int64 = 0, digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                v = v * 10 + Int64(b[i] - 0x30)
                digits += 1
                i += 1
                if digits > 9 { return nil }
            }
            guard digits > 0, i < b.count, let k = units[nextUnit...].firstIndex(where: { $0.0 == b[i] }) else { return nil }
            total += v * units[k].1
            nextUnit = k + 1
            i += 1
        }
        return b[0] == 0x2D ? -total : total
    }

    private static func number(_ b: [UInt8], _ from: Int, _ count: Int) -> Int? {
        guard from + count <= b.count, count > 0 else { return nil }
        var v = 0
        for c in b[from..<(from + count)] {
            guard c >= 0x30, c <= 0x39 else { return nil }
            v = v * 10 + Int(c - 0x30)
        }
        return v
    }
}

extension String {
    /// The text without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

import MQADomain

/// How reports spell times, durations and numbers. Everything is computed
/// from the data alone (no locale, no clock, no time zone) so that a report
/// is the same bytes on every machine: the golden tests depend on it.
public enum ReportText {
    /// `2026-11-29T10:00:02.125Z` (UTC, milliseconds).
    public static func timestamp(_ ms: Int64) -> String {
        let days = floorDiv(ms, 86_400_000)
        let msOfDay = ms - days * 86_400_000
        let (y, m, d) = civil(fromDays: days)
        let h = msOfDay / 3_600_000, mi = msOfDay / 60_000 % 60, s = msOfDay / 1000 % 60, f = msOfDay % 1000
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(h, 2)):\(pad(mi, 2)):\(pad(s, 2)).\(pad(f, 3))Z"
    }

    /// An instant as an offset from the meeting's start: `+0:07.900`,
    /// `+1:02:03.000`. Shorter than a timestamp, and what one compares
    /// when reading a timeline.
    public static func offset(_ ms: Int64, from origin: Int64) -> String {
        let delta = ms - origin
        let sign = delta < 0 ? "-" : "+"
        let a = abs(delta)
        let h = a / 3_600_000, m = a / 60_000 % 60, s = a / 1000 % 60, f = a % 1000
        let tail = "\(pad(s, 2)).\(pad(f, 3))"
        return h > 0 ? "\(sign)\(h):\(pad(m, 2)):\(tail)" : "\(sign)\(m):\(tail)"
    }

    /// `850 ms`, `2.5 s`, `1 m 05 s`, `2 h 03 m`.
    public static func duration(_ ms: Int64) -> String {
        if ms < 1000 { return "\(ms) ms" }
        if ms < 60_000 { return "\(JSON.number((Double(ms) / 100).rounded() / 10)) s" }
        let s = ms / 1000
        if s < 3600 { return "\(s / 60) m \(pad(s % 60, 2)) s" }
        return "\(s / 3600) h \(pad(s / 60 % 60, 2)) m"
    }

    /// At most `places` decimals, no trailing zeros; `—` for `nil`.
    public static func number(_ x: Double?, places: Int = 2) -> String {
        guard let x, x.isFinite else { return "—" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return JSON.number((x * scale).rounded() / scale)
    }

    /// `12.5%` from a ratio; `—` for `nil`.
    public static func percent(_ ratio: Double?, places: Int = 1) -> String {
        guard let ratio else { return "—" }
        return number(ratio * 100, places: places) + "%"
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Days since 1970-01-01 → proleptic Gregorian (year, month, day)
    /// (Howard Hinnant's `civil_from_days`).
    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

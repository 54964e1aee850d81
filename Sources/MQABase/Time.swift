/// Human-readable times for text reports (JSON keeps integer ms).
public enum Time {
    /// `2026-11-29T10:00:02.125Z`
    public static func iso(_ ms: Int64) -> String { RFC3339.format(ms) }

    /// The proleptic Gregorian (year, month, day) of a day count since
    /// 1970-01-01, the inverse of `RFC3339.daysFromCivil` (H. Hinnant's
    /// civil_from_days). Shared by `iso` and the simulator's RFC 3339 writer.
    @inlinable
    public static func civil(fromDays z0: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// A time a user typed: RFC 3339 (`2026-11-29T10:00:00Z`, any offset)
    /// or a date (`2026-11-29`, midnight UTC); nil when it is neither.
    public static func parse(_ text: String) -> Int64? {
        var t = text
        if t.count == 10 { t += "T00:00:00Z" }
        return t.utf8.withContiguousStorageIfAvailable { RFC3339.milliseconds($0) } ?? nil
    }

    /// A duration in the largest sensible units: `850 ms`, `2.5 s`,
    /// `1 m 05 s`, `2 h 03 m`.
    public static func duration(_ ms: Int64) -> String {
        if ms < 0 { return "-" + duration(-ms) }
        if ms < 1000 { return "\(ms) ms" }
        if ms < 60_000 { return "\(JSON.number((Double(ms) / 100).rounded() / 10)) s" }
        let s = ms / 1000
        if s < 3600 { return "\(s / 60) m \(pad(s % 60)) s" }
        return "\(s / 3600) h \(pad(s / 60 % 60)) m"
    }

    private static func pad(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
}

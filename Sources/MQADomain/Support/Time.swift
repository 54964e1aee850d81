/// Human-readable times for text reports (JSON keeps integer ms).
public enum Time {
    /// `2026-11-29T10:00:02.125Z`
    public static func iso(_ ms: Int64) -> String { RFC3339.format(ms) }

    /// A duration in the largest sensible units: `850 ms`, `12.4 s`,
    /// `3m05s`, `1h02m`.
    public static func duration(_ ms: Int64) -> String {
        if ms < 0 { return "-" + duration(-ms) }
        if ms < 1000 { return "\(ms) ms" }
        if ms < 60_000 {
            let tenths = (ms + 50) / 100
            return "\(tenths / 10).\(tenths % 10) s"
        }
        let seconds = ms / 1000
        if seconds < 3600 { return "\(seconds / 60)m\(pad(seconds % 60))s" }
        return "\(seconds / 3600)h\(pad(seconds / 60 % 60))m"
    }

    private static func pad(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
}

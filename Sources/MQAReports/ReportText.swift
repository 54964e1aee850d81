import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// How reports spell times, durations and numbers. Everything is computed
/// from the data alone (no locale, no clock, no time zone) so that a report
/// is the same bytes on every machine: the golden tests depend on it.
public enum ReportText {
    /// `2026-11-29T10:00:02.125Z` (UTC, milliseconds).
    public static func timestamp(_ ms: Int64) -> String { Time.iso(ms) }

    /// `2026-11-29 10:00:02` (UTC, whole seconds): a start time to read,
    /// not to parse.
    public static func dateTime(_ ms: Int64) -> String {
        let iso = timestamp(ms)
        return iso.prefix(10) + " " + iso.dropFirst(11).prefix(8)
    }

    /// An instant as an offset from the meeting's start: `+0:07.900`,
    /// `+1:02:03.000`. Shorter than a timestamp, and what one compares
    /// when reading a timeline. `milliseconds: false` drops the fraction
    /// (`+12:03`, `+1:02:03`: whole seconds, truncated) for incident windows
    /// and chart axes.
    public static func offset(_ ms: Int64, from origin: Int64, milliseconds: Bool = true) -> String {
        let delta = ms - origin
        let sign = delta < 0 ? "-" : "+"
        let a = abs(delta)
        let h = a / 3_600_000, m = a / 60_000 % 60, s = a / 1000 % 60, f = a % 1000
        let tail = milliseconds ? "\(pad(s, 2)).\(pad(f, 3))" : pad(s, 2)
        return h > 0 ? "\(sign)\(h):\(pad(m, 2)):\(tail)" : "\(sign)\(m):\(tail)"
    }

    /// `850 ms`, `2.5 s`, `1 m 05 s`, `2 h 03 m`.
    public static func duration(_ ms: Int64) -> String { Time.duration(ms) }

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

    /// `s` as one word of a POSIX shell command, quoted only when it
    /// needs to be: a command a report suggests must run as it is pasted.
    public static func shellWord(_ s: String) -> String {
        let plain = !s.isEmpty && s.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A) || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x3A || c == 0x2F
        }
        return plain ? s : "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

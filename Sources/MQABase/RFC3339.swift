/// Parses RFC 3339 date-times (`2026-11-29T10:00:02.125Z`,
/// `2026-11-29t10:00:02+01:00`, and the space separator RFC 3339 allows)
/// into milliseconds since the Unix epoch. Fractions finer than a
/// millisecond are truncated; a leap second (`:60`) counts as the next
/// second, as POSIX time does, and is a time only where RFC 3339 §5.7
/// puts one: 23:59:60 UTC at the end of June or December.
package enum RFC3339 {
    /// The first 13 bytes of the last time parsed through it
    /// (`2026-11-29T10`) and the hours since the epoch they name: a log's
    /// consecutive times share their date and hour, so these are checked
    /// and computed once per hour of log, not once per line (they were
    /// about half the cost of a time).
    package struct HourCache {
        var head: UInt64 = 0
        var tail: UInt64 = 0
        var hours = 0
        var valid = false

        package init() {}
    }

    /// `milliseconds(s)`, the date and hour taken from `cache` when `s`
    /// starts with the same 13 bytes as the last time parsed through it.
    package static func milliseconds(_ s: UnsafeBufferPointer<UInt8>, cache: inout HourCache) -> Int64? {
        guard s.count >= 16, let base = s.baseAddress else { return milliseconds(s) }
        let raw = UnsafeRawPointer(base)
        // Bytes 0–7, and 8–12 as the top five of the eight from byte 5.
        let head = raw.loadUnaligned(as: UInt64.self)
        let tail = raw.loadUnaligned(fromByteOffset: 5, as: UInt64.self) >> 24
        if !(cache.valid && cache.head == head && cache.tail == tail) {
            cache.valid = false
            guard let hours = hoursOfPrefix(s) else { return nil }
            cache.head = head
            cache.tail = tail
            cache.hours = hours
            cache.valid = true
        }
        var i = 13
        return rest(s, &i, hours: cache.hours)
    }

    /// The hours since the epoch of `s`'s first 13 bytes (`YYYY-MM-DDTHH`,
    /// separator `T`, `t` or space), when they are a valid date and hour.
    private static func hoursOfPrefix(_ s: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        guard let year = digits(s, &i, 4), expect(s, &i, UInt8(ascii: "-")), let month = digits(s, &i, 2),
            expect(s, &i, UInt8(ascii: "-")), let day = digits(s, &i, 2)
        else { return nil }
        guard i < s.count, s[i] == UInt8(ascii: "T") || s[i] == UInt8(ascii: "t") || s[i] == UInt8(ascii: " ") else { return nil }
        i += 1
        guard let hour = digits(s, &i, 2) else { return nil }
        guard month >= 1 && month <= 12, day >= 1 && day <= daysIn(month: month, year: year), hour <= 23 else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 24 + hour
    }

    /// The rest of a time after its hour, at `i`: `:MM:SS`, a fraction, the
    /// zone, and nothing after.
    private static func rest(_ s: UnsafeBufferPointer<UInt8>, _ i: inout Int, hours: Int) -> Int64? {
        guard expect(s, &i, UInt8(ascii: ":")), let minute = digits(s, &i, 2), expect(s, &i, UInt8(ascii: ":")),
            let second = digits(s, &i, 2)
        else { return nil }
        var millis = 0
        if i < s.count && s[i] == UInt8(ascii: ".") {
            i += 1
            var count = 0
            while i < s.count, s[i] >= 0x30 && s[i] <= 0x39 {
                if count < 3 { millis = millis * 10 + Int(s[i] - 0x30) }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 3) { millis *= 10 }
        }
        var offsetMinutes = 0
        guard i < s.count else { return nil }
        switch s[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = digits(s, &i, 2), expect(s, &i, UInt8(ascii: ":")), let om = digits(s, &i, 2), oh <= 23, om <= 59
            else { return nil }
            offsetMinutes = sign * (oh * 60 + om)
        default:
            return nil
        }
        guard i == s.count, minute <= 59, second <= 60 else { return nil }
        let utcMinutes = hours * 60 + minute - offsetMinutes
        if second == 60 && !isLeapSecondMinute(utcMinutes) { return nil }
        let seconds = utcMinutes * 60 + second
        return Int64(seconds) * 1000 + Int64(millis)
    }

    /// Whether the UTC minute `minutes` since the epoch is 23:59 of June
    /// 30 or December 31: "at all other times the maximum value of
    /// time-second is 59" (RFC 3339 §5.7; a zone's offset shifts the
    /// point, which happens at one instant around the globe). Without a
    /// table of the leap seconds there were, every such minute is allowed:
    /// `10:00:60Z` is the mistake Python, JavaScript and Go refuse, while
    /// `2016-12-31T23:59:60Z` was a real leap second.
    private static func isLeapSecondMinute(_ minutes: Int) -> Bool {
        let days = minutes >= 0 ? minutes / 1440 : (minutes - 1439) / 1440
        guard minutes - days * 1440 == 1439 else { return false }
        let (_, month, day) = Time.civil(fromDays: Int64(days))
        return (month == 6 && day == 30) || (month == 12 && day == 31)
    }

    @inline(__always)
    private static func digits(_ s: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ count: Int) -> Int? {
        guard i + count <= s.count else { return nil }
        var v = 0
        for _ in 0..<count {
            let c = s[i]
            guard c >= 0x30 && c <= 0x39 else { return nil }
            v = v * 10 + Int(c - 0x30)
            i += 1
        }
        return v
    }

    @inline(__always)
    private static func expect(_ s: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ c: UInt8) -> Bool {
        guard i < s.count, s[i] == c else { return false }
        i += 1
        return true
    }

    /// The time `s` names, or nil when it is not an RFC 3339 date-time.
    package static func milliseconds(_ s: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let hours = hoursOfPrefix(s) else { return nil }
        var i = 13
        return rest(s, &i, hours: hours)
    }

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's
    /// algorithm, which needs no tables and no loops).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// Formats ms since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    /// (The simulator writes the same form straight into its byte buffer.)
    static func format(_ ms: Int64) -> String {
        let totalSeconds = Int(ms >= 0 ? ms / 1000 : (ms - 999) / 1000)
        let millis = Int(ms - Int64(totalSeconds) * 1000)
        let days = totalSeconds >= 0 ? totalSeconds / 86400 : (totalSeconds - 86399) / 86400
        let secs = totalSeconds - days * 86400
        let (year, month, day) = Time.civil(fromDays: Int64(days))
        func pad(_ v: some BinaryInteger, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2)).\(pad(millis, 3))Z"
    }
}

import MQABase

/// The times an older Chrome's webrtc-internals page wrote into a
/// connection's log: `Date.toLocaleString()` text such as
/// `4/14/2025, 1:22:54 PM` or `14.4.2025, 13:22:54`, a wall clock with
/// no zone (Chrome wrote epoch ms only from version 144 on).
///
/// A wall clock is placed once the dump's offset from UTC is known, and
/// the dump tells it: a connection whose samples began before its media
/// moved logs `connected` a moment before its first sample with media.
/// Their difference, rounded to a multiple of 15 minutes (every zone's
/// offset is one), is the offset (Docs/import.md).
enum LocaleLogTime {
    /// How the text orders its date's numbers.
    enum DateOrder: CaseIterable { case yearMonthDay, monthDayYear, dayMonthYear }

    /// One reading of a text: its wall clock as if it were UTC, in ms.
    struct Reading: Equatable {
        var order: DateOrder
        var ms: Int64
    }

    /// A wall clock read as if it were UTC, in ms, for each date order
    /// the text allows (`4/5/2025` is April 5 or May 4): nil when the text
    /// is no date and time of day.
    static func wallClock(_ text: [UInt8]) -> [Reading]? {
        // Six numbers: three of the date, then h:m:s (or h.m.s); a marker
        // of the afternoon or morning for a 12-hour clock.
        var numbers: [(value: Int, digits: Int)] = []
        var timeStart: Int?
        var i = 0
        while i < text.count {
            let c = text[i]
            if c >= 0x30 && c <= 0x39 {
                var v = 0, n = 0
                while i < text.count, text[i] >= 0x30, text[i] <= 0x39, n < 5 {
                    v = v * 10 + Int(text[i] - 0x30)
                    n += 1
                    i += 1
                }
                if n > 4 { return nil }
                if timeStart == nil, i < text.count, text[i] == UInt8(ascii: ":") { timeStart = numbers.count }
                numbers.append((v, n))
                if numbers.count > 6 { return nil }
                continue
            }
            i += 1
        }
        guard numbers.count == 6 else { return nil }
        // The time of day is the numbers joined by ':', wherever it stands;
        // without a ':' it is the last three (`13.22.54`).
        let t = timeStart ?? 3
        guard t == 0 || t == 3 else { return nil }
        let date = t == 0 ? Array(numbers[3...]) : Array(numbers[..<3])
        let time = t == 0 ? Array(numbers[..<3]) : Array(numbers[3...])
        var hour = time[0].value
        let words = String(decoding: text, as: UTF8.self)
        let pm = ["PM", "pm", "p.m.", "P.M.", "오후", "午後", "下午"].contains { words.contains($0) }
        let am = ["AM", "am", "a.m.", "A.M.", "오전", "午前", "上午"].contains { words.contains($0) }
        if pm || am {
            guard hour >= 1 && hour <= 12, pm != am else { return nil }
            hour = hour % 12 + (pm ? 12 : 0)
        }
        guard hour <= 23, time[1].value <= 59, time[2].value <= 59 else { return nil }
        let seconds = Int64(hour * 3600 + time[1].value * 60 + time[2].value)
        var out: [Reading] = []
        for order in DateOrder.allCases {
            let (y, m, d): ((value: Int, digits: Int), (value: Int, digits: Int), (value: Int, digits: Int))
            switch order {
            case .yearMonthDay: (y, m, d) = (date[0], date[1], date[2])
            case .monthDayYear: (y, m, d) = (date[2], date[0], date[1])
            case .dayMonthYear: (y, m, d) = (date[2], date[1], date[0])
            }
            guard y.digits == 4, y.value >= 2000, m.value >= 1, m.value <= 12, d.value >= 1,
                  d.value <= RFC3339.daysIn(month: m.value, year: y.value) else { continue }
            let days = Int64(RFC3339.daysFromCivil(year: y.value, month: m.value, day: d.value))
            let ms = (days * 86_400 + seconds) * 1000
            if !out.contains(where: { $0.ms == ms }) { out.append(Reading(order: order, ms: ms)) }
        }
        return out.isEmpty ? nil : out
    }

    /// Media begins within this long of `connected` (ICE, then DTLS, then
    /// the first packets), plus a sampling interval's lag.
    static let anchorSlackMs: Int64 = 60_000
    static let quarterHourMs: Int64 = 900_000

    /// The dump's offset from UTC (local − UTC, ms) and its date order,
    /// from every connection that saw its media begin: they must agree;
    /// nil when none did or they disagree (the times stay unplaced).
    static func offset(_ results: [ConnectionResult]) -> (offset: Int64, order: DateOrder)? {
        var found: (offset: Int64, order: DateOrder)?
        for r in results {
            guard let began = r.converter.mediaBeganAt,
                  let connected = r.meta.states.first(where: { $0.ts == nil && ($0.state == "connected" || $0.state == "completed") }),
                  !connected.wall.isEmpty else { continue }
            var fits: [(offset: Int64, order: DateOrder)] = []
            for reading in connected.wall {
                let (order, wall) = (reading.order, reading.ms)
                let d = wall - began
                let rounded = (d >= 0 ? d + quarterHourMs / 2 : d - quarterHourMs / 2) / quarterHourMs * quarterHourMs
                // Offsets run from −12:00 to +14:00; `connected` comes first.
                guard rounded >= -12 * 3_600_000, rounded <= 14 * 3_600_000,
                      began - (wall - rounded) >= -5_000, began - (wall - rounded) <= anchorSlackMs else { continue }
                fits.append((rounded, order))
            }
            guard fits.count == 1 else {
                if fits.count > 1 { return nil }
                continue
            }
            if let f = found, f.offset != fits[0].offset || f.order != fits[0].order { return nil }
            found = fits[0]
        }
        return found
    }

    /// Places every unplaced state change of `results` once the dump's
    /// offset is known; returns the offset used, if any.
    @discardableResult
    static func place(_ results: inout [ConnectionResult]) -> Int64? {
        guard let (offset, order) = offset(results) else { return nil }
        for i in results.indices {
            for j in results[i].meta.states.indices where results[i].meta.states[j].ts == nil {
                guard let wall = results[i].meta.states[j].wall.first(where: { $0.order == order })?.ms else { continue }
                let ts = wall - offset
                results[i].meta.states[j].ts = ts
                if results[i].meta.states[j].byApp { results[i].meta.closedAt = results[i].meta.closedAt ?? ts }
            }
        }
        return offset
    }
}

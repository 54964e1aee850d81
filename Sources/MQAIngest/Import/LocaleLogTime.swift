import Foundation
import MQABase

/// The times an older Chrome's webrtc-internals page wrote into a
/// connection's log: `Date.toLocaleString()` text such as
/// `4/14/2025, 1:22:54 PM` or `14.4.2025, 13:22:54`, a wall clock with
/// no zone (Chrome wrote epoch ms only from version 144 on).
///
/// A wall clock is placed once the dump's offset from UTC is known, and
/// the dump tells it: a connection whose samples began before its media
/// moved logs its first entry a moment before its first sample, and
/// `connected` a moment before its first sample with media. Both gaps,
/// with the offset rounded to a multiple of 15 minutes (every zone's
/// offset is one), must be short (Docs/import.md). A wrong time is worse
/// than none: whatever is unsure stays unplaced.
enum LocaleLogTime {
    /// How the text orders its date's numbers.
    enum DateOrder: CaseIterable { case yearMonthDay, monthDayYear, dayMonthYear }

    /// One reading of a text: its wall clock as if it were UTC, in ms.
    struct Reading: Equatable {
        var order: DateOrder
        var ms: Int64
    }

    /// 12-hour markers known to mean the afternoon or the morning; a text
    /// with any other letters (a marker of a language not listed) is not
    /// read, as its hour could be either.
    static let afternoon = ["p.\u{00A0}m.", "p.\u{202F}m.", "p. m.", "p.m.", "P.M.", "PM", "pm", "μ.μ.", "오후", "午後", "下午"]
        .map { Array($0.utf8) }
    static let morning = ["a.\u{00A0}m.", "a.\u{202F}m.", "a. m.", "a.m.", "A.M.", "AM", "am", "π.μ.", "오전", "午前", "上午"]
        .map { Array($0.utf8) }
    /// Words some locales put between the date and the time.
    static let fillers = ["klo", "г.", "ч.", "à", "um", "alle", "às", "a las", "om", "kl."].map { Array($0.utf8) }

    /// Blanks every occurrence of `word` in `text` (bytes, no Strings: a
    /// dump logs thousands of times); whether there was one.
    static func blank(_ word: [UInt8], in text: inout [UInt8]) -> Bool {
        guard text.count >= word.count else { return false }
        var found = false
        var i = 0
        while i + word.count <= text.count {
            if text[i] == word[0], text[i..<(i + word.count)].elementsEqual(word) {
                for k in i..<(i + word.count) { text[k] = 0x20 }
                found = true
                i += word.count
            } else {
                i += 1
            }
        }
        return found
    }

    /// The readings of a log time, one per date order the text allows
    /// (`4/5/2025` is April 5 or May 4; `5.5.2025` is May 5 either way, and
    /// both orders keep it); nil when it is no date and time of day.
    static func wallClock(_ bytes: [UInt8]) -> [Reading]? {
        var text = bytes
        var pm = false, am = false
        // Only texts with more than digits, separators and spaces need the
        // word lists (a 24-hour locale's text has none).
        if text.contains(where: { $0 >= 0x41 }) {
            for m in afternoon where blank(m, in: &text) { pm = true }
            for m in morning where blank(m, in: &text) { am = true }
            for w in fillers { _ = blank(w, in: &text) }
        }
        // Only ASCII digits, separators and spaces may be left.
        var numbers: [(value: Int, digits: Int)] = []
        var timeStart: Int?
        var value = 0, digits = 0
        for u in String(decoding: text, as: UTF8.self).unicodeScalars {
            if u.value >= 0x30 && u.value <= 0x39 {
                value = value * 10 + Int(u.value - 0x30)
                digits += 1
                if digits > 4 { return nil }
                continue
            }
            if digits > 0 {
                if timeStart == nil, u == ":" { timeStart = numbers.count }
                numbers.append((value, digits))
                (value, digits) = (0, 0)
            }
            switch u {
            case "/", ".", ",", ":", "-", " ", "\u{00A0}", "\u{202F}", "\u{200E}", "\u{200F}", "\t": continue
            default: return nil
            }
        }
        if digits > 0 { numbers.append((value, digits)) }
        guard numbers.count == 6 else { return nil }
        // The time of day is the numbers joined by ':', wherever it stands;
        // without a ':' it is the last three (`13.22.54`).
        let t = timeStart ?? 3
        guard t == 0 || t == 3 else { return nil }
        let date = t == 0 ? Array(numbers[3...]) : Array(numbers[..<3])
        let time = t == 0 ? Array(numbers[..<3]) : Array(numbers[3...])
        var hour = time[0].value
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
            out.append(Reading(order: order, ms: (days * 86_400 + seconds) * 1000))
        }
        return out.isEmpty ? nil : out
    }

    /// How far (ms) a placed moment may fall from the sample it must lead:
    /// the first log entry before the first sample, `connected` before the
    /// first sample with media (ICE, then DTLS, then packets, plus a
    /// sampling interval's lag).
    static let leadBefore: Int64 = 60_000
    static let leadAfter: Int64 = 5_000
    static let quarterHourMs: Int64 = 900_000

    /// The dump's offset from UTC (local − UTC, ms) and the date orders its
    /// texts may be in, from every connection that saw its media begin:
    /// they must agree; nil when none did or they disagree.
    static func offset(_ results: [ConnectionResult]) -> (offset: Int64, orders: Set<DateOrder>, anchor: Int64)? {
        var offset: Int64?
        var anchor: Int64 = 0
        var orders = Set(DateOrder.allCases)
        for r in results {
            guard let began = r.converter.mediaBeganAt, r.converter.samples > 0, r.converter.firstSampleFresh,
                  let first = r.meta.firstLogWall, !first.isEmpty,
                  let connected = r.meta.states.first(where: { $0.ts == nil && ($0.state == "connected" || $0.state == "completed") }),
                  !connected.wall.isEmpty else { continue }
            var fits: [(offset: Int64, order: DateOrder)] = []
            for reading in connected.wall {
                let d = reading.ms - began
                let rounded = (d >= 0 ? d + quarterHourMs / 2 : d - quarterHourMs / 2) / quarterHourMs * quarterHourMs
                guard rounded >= -12 * 3_600_000, rounded <= 14 * 3_600_000, leads(reading.ms - rounded, began) else { continue }
                // The connection's first entry must lead its first sample too:
                // a lag of a quarter hour (a lobby) would pass the rounding.
                guard let f = first.first(where: { $0.order == reading.order }), leads(f.ms - rounded, r.converter.firstTs) else { continue }
                fits.append((rounded, reading.order))
            }
            let offsets = Set(fits.map(\.offset))
            guard offsets.count == 1 else {
                if offsets.count > 1 { return nil }
                continue
            }
            if let o = offset, o != offsets.first! { return nil }
            if offset == nil { anchor = began }
            offset = offsets.first!
            orders.formIntersection(fits.map(\.order))
            if orders.isEmpty { return nil }
        }
        return offset.map { ($0, orders, anchor) }
    }

    /// The instants in `[from, to]` at which a zone that had `offset` at
    /// `anchor` changes its offset (a clock change): a text on the other
    /// side of one from the anchor reads an hour off. Every such zone of
    /// the tz database counts, as the dump does not name its zone.
    static func clockChanges(offset: Int64, anchor: Int64, from: Int64, to: Int64) -> [Int64] {
        let at = Date(timeIntervalSince1970: Double(anchor) / 1000)
        var out: [Int64] = []
        for id in TimeZone.knownTimeZoneIdentifiers {
            guard let zone = TimeZone(identifier: id), Int64(zone.secondsFromGMT(for: at)) * 1000 == offset else { continue }
            var after = Date(timeIntervalSince1970: Double(from) / 1000)
            while let next = zone.nextDaylightSavingTimeTransition(after: after), next.timeIntervalSince1970 * 1000 <= Double(to) {
                out.append(Int64((next.timeIntervalSince1970 * 1000).rounded()))
                after = next
            }
        }
        return out
    }

    /// Whether `placed` lies just before (or a moment after) `sample`.
    static func leads(_ placed: Int64, _ sample: Int64) -> Bool {
        sample - placed >= -leadAfter && sample - placed <= leadBefore
    }

    /// Places every unplaced state change of `results` once the dump's
    /// offset is known; returns the offset used, if any. A text is placed
    /// only where every date order still possible reads it alike, and only
    /// within a minute of its connection's samples (a clock change inside
    /// the call moves the rest by an hour: those stay unplaced).
    @discardableResult
    static func place(_ results: inout [ConnectionResult]) -> Int64? {
        guard let (offset, orders, anchor) = offset(results) else { return nil }
        let sampled = results.filter { $0.converter.samples > 0 }
        let changes = clockChanges(offset: offset, anchor: anchor,
                                   from: (sampled.map(\.converter.firstTs).min() ?? anchor) - leadBefore,
                                   to: (sampled.map(\.converter.lastTs).max() ?? anchor) + leadBefore)
        for i in results.indices {
            let c = results[i].converter
            guard c.samples > 0 else { continue }
            for j in results[i].meta.states.indices where results[i].meta.states[j].ts == nil {
                let readings = results[i].meta.states[j].wall.filter { orders.contains($0.order) }
                guard let wall = readings.first?.ms, readings.allSatisfy({ $0.ms == wall }),
                      Set(readings.map(\.order)) == orders else { continue }
                let ts = wall - offset
                guard ts >= c.firstTs - leadBefore, ts <= c.lastTs + leadBefore,
                      !changes.contains(where: { ($0 <= ts) != ($0 <= anchor) }) else { continue }
                results[i].meta.states[j].ts = ts
                if results[i].meta.states[j].byApp { results[i].meta.closedAt = results[i].meta.closedAt ?? ts }
            }
        }
        return offset
    }
}

import Testing
@testable import MQABase

/// Every form `--since`/`--until`/`--at` take, resolved in UTC and in
/// zones with daylight saving time (both hemispheres), across the changes.
@Suite struct TimeInputTests {
    /// 2026-11-29T10:00:00Z, a Sunday.
    let now: Int64 = 1_795_946_400_000
    let hour: Int64 = 3_600_000
    let day: Int64 = 86_400_000
    let sydney = ClockZone("Australia/Sydney")!
    let berlin = ClockZone("Europe/Berlin")!
    let newYork = ClockZone("America/New_York")!

    func ms(_ rfc3339: String) -> Int64 { Time.parse(rfc3339)! }
    func resolve(_ text: String, _ zone: ClockZone = .utc, near: (start: Int64, end: Int64)? = nil) -> Int64? {
        TimeInput.parse(text)?.resolve(zone: zone, now: now, near: near)
    }

    @Test func rfc3339IsAnInstantWhateverTheZone() {
        #expect(resolve("2026-11-29T14:05:00Z") == ms("2026-11-29T14:05:00Z"))
        #expect(resolve("2026-11-29T14:05:00+11:00", berlin) == ms("2026-11-29T03:05:00Z"))
        #expect(resolve("2026-11-29T14:05:00.250Z", sydney) == ms("2026-11-29T14:05:00.250Z"))
    }

    @Test func epochMillisecondsAndMinutesWithAnOffsetAreInstants() {
        #expect(resolve("1795946400000", berlin) == ms("2026-11-29T10:00:00Z"))
        #expect(resolve("2026-11-29T14:05Z", sydney) == ms("2026-11-29T14:05:00Z"))
        #expect(resolve("2026-11-29T14:05+01:00") == ms("2026-11-29T13:05:00Z"))
        #expect(resolve("2026-11-29 14:05-03:30") == ms("2026-11-29T17:35:00Z"))
        // Epoch seconds, or a short number, are no time: refused, not 1970.
        #expect(resolve("1795946400") == nil && resolve("12345") == nil && resolve("17959464000001") == nil)
        #expect(resolve("0001795946400") == nil)
        #expect(resolve("2026-11-29T14:5Z") == nil && resolve("2026-11-29T14:05+1") == nil)
    }

    @Test func aDateIsMidnightInTheZone() {
        #expect(resolve("2026-11-29") == ms("2026-11-29T00:00:00Z"))
        #expect(resolve("2026-11-29", sydney) == ms("2026-11-28T13:00:00Z"))  // +11:00 in summer
        #expect(resolve("2026-07-01", sydney) == ms("2026-06-30T14:00:00Z"))  // +10:00 in winter
        #expect(resolve("2026-11-29", newYork) == ms("2026-11-29T05:00:00Z"))
    }

    @Test func aLocalDateTimeIsReadInTheZone() {
        #expect(resolve("2026-11-29T14:05", berlin) == ms("2026-11-29T13:05:00Z"))
        #expect(resolve("2026-11-29 14:05:30", berlin) == ms("2026-11-29T13:05:30Z"))
        #expect(resolve("2026-07-01T14:05", berlin) == ms("2026-07-01T12:05:00Z"))
        #expect(resolve("2026-02-30T10:00") == nil)
    }

    @Test func aTimeOfDayIsTodayWithoutAMeeting() {
        #expect(resolve("14:05") == ms("2026-11-29T14:05:00Z"))
        #expect(resolve("9:05") == ms("2026-11-29T09:05:00Z"))
        #expect(resolve("14:05:30.5") == ms("2026-11-29T14:05:30.500Z"))
        // 10:00Z is 21:00 in Sydney: "today" there is the 29th too.
        #expect(resolve("14:05", sydney) == ms("2026-11-29T03:05:00Z"))
        // In Los Angeles it is 02:00 on the 29th.
        #expect(resolve("23:30", ClockZone("America/Los_Angeles")!) == ms("2026-11-30T07:30:00Z"))
    }

    @Test func aTimeOfDayFallsOnTheMeetingsDate() {
        let meeting = (start: ms("2026-11-15T12:41:57Z"), end: ms("2026-11-15T13:05:19Z"))
        #expect(resolve("12:50", near: meeting) == ms("2026-11-15T12:50:00Z"))
        #expect(resolve("13:50", berlin, near: meeting) == ms("2026-11-15T12:50:00Z"))
        // Outside the meeting: still its date, not today.
        #expect(resolve("08:00", near: meeting) == ms("2026-11-15T08:00:00Z"))
        // A meeting over midnight: 00:10 is on its second day.
        let late = (start: ms("2026-11-15T23:40:00Z"), end: ms("2026-11-16T00:30:00Z"))
        #expect(resolve("00:10", near: late) == ms("2026-11-16T00:10:00Z"))
        #expect(resolve("23:50", near: late) == ms("2026-11-15T23:50:00Z"))
    }

    @Test func aTimeOfDayFindsAMeetingOfSeveralDays() {
        // 20:00 on the 10th to 08:00 on the 12th: 14:05 is only on the 11th,
        // a date that is neither the start's nor the end's.
        let long = (start: ms("2026-11-10T20:00:00Z"), end: ms("2026-11-12T08:00:00Z"))
        #expect(resolve("14:05", near: long) == ms("2026-11-11T14:05:00Z"))
        // Every day holds 21:00: the first inside the meeting is meant.
        #expect(resolve("21:00", near: long) == ms("2026-11-10T21:00:00Z"))
        #expect(resolve("15:05", berlin, near: long) == ms("2026-11-11T14:05:00Z"))
        // A meeting of a thousand days is found as fast.
        let years = (start: ms("2024-01-01T10:00:00Z"), end: ms("2026-09-27T10:00:00Z"))
        #expect(resolve("09:00", near: years) == ms("2024-01-02T09:00:00Z"))
    }

    @Test func aTimeOfDayFindsAMeetingInTheRepeatedHour() {
        // New York went back from EDT to EST at 06:00Z on 2026-11-01: 01:30
        // happened twice, at 05:30Z and at 06:30Z. A meeting of the second
        // pass (01:05–01:50 EST) is found at its own 01:30.
        let second = (start: ms("2026-11-01T06:05:00Z"), end: ms("2026-11-01T06:50:00Z"))
        #expect(resolve("01:30", newYork, near: second) == ms("2026-11-01T06:30:00Z"))
        // One of the first pass keeps the first.
        let first = (start: ms("2026-11-01T05:05:00Z"), end: ms("2026-11-01T05:50:00Z"))
        #expect(resolve("01:30", newYork, near: first) == ms("2026-11-01T05:30:00Z"))
        // Outside either: the first reading, on the start's date (cli.md's rule for a repeated hour).
        #expect(resolve("01:55", newYork, near: first) == ms("2026-11-01T05:55:00Z"))
        #expect(newYork.instants(local: ms("2026-11-01T01:30:00Z")) == [ms("2026-11-01T05:30:00Z"), ms("2026-11-01T06:30:00Z")])
        // In the spring gap, one instant: the clock's earlier offset.
        #expect(newYork.instants(local: ms("2026-03-08T02:30:00Z")) == [ms("2026-03-08T07:30:00Z")])
        // A meeting from 01:30 EST on the gap day to the next day: the 02:52
        // the clock really showed (on the 9th) wins over the one it skipped.
        let overGap = (start: ms("2026-03-08T06:30:00Z"), end: ms("2026-03-09T12:00:00Z"))
        #expect(resolve("02:52", newYork, near: overGap) == ms("2026-03-09T06:52:00Z"))
        // Only the skipped one inside: it is taken (the earlier offset's).
        let inGap = (start: ms("2026-03-08T06:30:00Z"), end: ms("2026-03-08T08:00:00Z"))
        #expect(resolve("02:52", newYork, near: inGap) == ms("2026-03-08T07:52:00Z"))
    }

    @Test func aTimeOfDayOutsideTheMeetingIsTheNearestReadingOnItsDate() {
        // 01:05-01:50 EST (second pass): 01:55 EST, 5 min after its end, not
        // 01:55 EDT, an hour before its start.
        let second = (start: ms("2026-11-01T06:05:00Z"), end: ms("2026-11-01T06:50:00Z"))
        #expect(resolve("01:55", newYork, near: second) == ms("2026-11-01T06:55:00Z"))
        // 23:00-23:30: 00:10 is on the meeting's date (cli.md), that
        // morning, though the next date's is nearer.
        let late = (start: ms("2026-11-15T23:00:00Z"), end: ms("2026-11-15T23:30:00Z"))
        #expect(resolve("00:10", near: late) == ms("2026-11-15T00:10:00Z"))
        #expect(resolve("22:00", near: late) == ms("2026-11-15T22:00:00Z"))
        // 00:00-01:00: 23:00 is that evening, not the evening before.
        let early = (start: ms("2026-11-29T00:00:00Z"), end: ms("2026-11-29T01:00:00Z"))
        #expect(resolve("23:00", near: early) == ms("2026-11-29T23:00:00Z"))
    }

    @Test func relativeTimesCountFromNow() {
        #expect(resolve("-2h") == now - 2 * hour)
        #expect(resolve("-90m") == now - 90 * 60_000)
        #expect(resolve("-1h30m") == now - 90 * 60_000)
        #expect(resolve("-45s") == now - 45_000)
        #expect(resolve("-3d") == now - 3 * day)
        #expect(resolve("-1w") == now - 7 * day)
        #expect(resolve("+15m") == now + 15 * 60_000)
        #expect(resolve("now") == now)
        #expect(resolve("-2H") == now - 2 * hour)
    }

    @Test func todayAndYesterdayAreLocalMidnights() {
        #expect(resolve("today") == ms("2026-11-29T00:00:00Z"))
        #expect(resolve("yesterday") == ms("2026-11-28T00:00:00Z"))
        #expect(resolve("Yesterday", sydney) == ms("2026-11-27T13:00:00Z"))
    }

    @Test func otherTextIsRefused() {
        for bad in ["", "last tuesday", "2h", "-2", "-h", "-2x", "-1m1h", "-1h1h", "25:00", "14:60", "14:05:61", "2026-13-01",
                    "2026-11-29T25:00", "14:5", "1405", "-9999999999h"] {
            #expect(TimeInput.parse(bad) == nil, "\(bad)")
        }
    }

    // MARK: daylight saving time

    @Test func springForwardGapMovesAhead() {
        // Berlin 2026-03-29: 02:00 → 03:00. 02:30 never happens; read with
        // the offset before the change it is 01:30Z, which is 03:30 CEST.
        #expect(resolve("2026-03-29T02:30", berlin) == ms("2026-03-29T01:30:00Z"))
        #expect(berlin.clock(ms("2026-03-29T01:30:00Z")) == "03:30:00")
        #expect(resolve("2026-03-29T01:59", berlin) == ms("2026-03-29T00:59:00Z"))
        #expect(resolve("2026-03-29T03:00", berlin) == ms("2026-03-29T01:00:00Z"))
    }

    @Test func fallBackAmbiguityTakesTheFirst() {
        // Berlin 2026-10-25: 03:00 CEST → 02:00 CET; 02:30 happens twice.
        #expect(resolve("2026-10-25T02:30", berlin) == ms("2026-10-25T00:30:00Z"))
        #expect(resolve("2026-10-25T03:30", berlin) == ms("2026-10-25T02:30:00Z"))
        // New York 2026-11-01: 01:30 twice; the first is EDT (-04:00).
        #expect(resolve("2026-11-01T01:30", newYork) == ms("2026-11-01T05:30:00Z"))
    }

    @Test func southernHemisphereChangesTheOtherWay() {
        // Sydney 2026-10-04: 02:00 AEST → 03:00 AEDT.
        #expect(resolve("2026-10-04T02:30", sydney) == ms("2026-10-03T16:30:00Z"))
        #expect(resolve("2026-10-04T03:30", sydney) == ms("2026-10-03T16:30:00Z"))
        #expect(sydney.offsetText(at: ms("2026-10-03T15:00:00Z")) == "+10:00")
        #expect(sydney.offsetText(at: ms("2026-10-03T17:00:00Z")) == "+11:00")
    }

    @Test func yesterdayAcrossAChangeIsStillMidnight() {
        // The day after Berlin's spring change, "yesterday" is 23 hours long.
        let after = ms("2026-03-30T10:00:00Z")
        let y = TimeInput.dayFromToday(-1).resolve(zone: berlin, now: after)
        #expect(y == ms("2026-03-28T23:00:00Z"))  // 00:00 CET on the 29th
        #expect(berlin.clock(y) == "00:00:00")
    }

    // MARK: zones

    @Test func zonesAreIANANames() {
        #expect(ClockZone("UTC")?.isUTC == true)
        #expect(ClockZone("Europe/Berlin")?.identifier == "Europe/Berlin")
        for bad in ["Mars/Olympus_Mons", "PST", "IST", "BST", "", "Europe", "/etc/passwd", "../Europe/Berlin", "Europe/../Berlin",
                    "posixrules", "localtime"] {
            #expect(ClockZone(bad) == nil, "\(bad)")
        }
        // The tz database's own names without a slash are IANA names too
        // (cli.md: "an IANA name"); abbreviations it does not hold are not.
        if ClockZone.databaseHolds("CET") {
            for good in ["CET", "WET", "EST5EDT", "Zulu", "UCT", "GMT0"] { #expect(ClockZone(good)?.identifier == good, "\(good)") }
            // EST is the database's fixed UTC-5, not US Eastern time.
            #expect(ClockZone("EST")?.offsetText(at: ms("2026-07-01T12:00:00Z")) == "-05:00")
        }
    }

    @Test func wallClocksAndOffsets() {
        let t = ms("2026-11-29T03:19:57.900Z")
        #expect(sydney.clock(t) == "14:19:57")
        #expect(sydney.offsetText(at: t) == "+11:00")
        #expect(ClockZone("Asia/Kolkata")!.offsetText(at: t) == "+05:30")
        #expect(newYork.dateTime(t) == "2026-11-28 22:19:57")
        #expect(ClockZone.utc.clock(t) == "03:19:57")
    }
}

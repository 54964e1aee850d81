import Testing
@testable import MQAIngest

/// `StatsReport` keeps what the mapping reads: every property of the
/// types it reads, of the others only the `trackIdentifier` a `trackId`
/// may point to (a dump of 1,000 connections holds all their reports).
@Suite struct StatsReportTests {
    @Test func aReadTypeKeepsEveryPropertyAndNullClearsOne() {
        var r = StatsReport(type: "inbound-rtp")
        r[.packetsLost] = .number(Fixed(integer: 3))
        r[.kind] = .text("video")
        r[.isRemote] = .bool(false)
        #expect(r.number(.packetsLost) == Fixed(integer: 3))
        #expect(r.text(.kind) == "video" && r.bool(.isRemote) == false)
        #expect(r.number(.packetsReceived) == nil)
        r[.packetsLost] = nil
        #expect(r[.packetsLost] == nil && r.text(.kind) == "video")
    }

    @Test func aTypeTheMappingDoesNotReadKeepsOnlyItsTrackIdentifier() {
        var track = StatsReport(type: "track")
        track[.framesDecoded] = .number(Fixed(integer: 9))
        #expect(track[.framesDecoded] == nil)
        track[.trackIdentifier] = .text("cam-1")
        track[.framesDecoded] = .number(Fixed(integer: 9))
        #expect(track.text(.trackIdentifier) == "cam-1" && track[.framesDecoded] == nil)
        var codec = StatsReport(type: "codec")
        codec[.timestamp] = .number(Fixed(integer: 1))
        #expect(codec[.timestamp] == nil)
    }

    @Test func anUntypedReportKeepsEverythingUntilItsTypeComes() {
        var r = StatsReport(type: "")
        r[.bytesReceived] = .number(Fixed(integer: 1200))
        r.type = "inbound-rtp"
        #expect(r.category == .inbound && r.number(.bytesReceived) == Fixed(integer: 1200))
    }
}

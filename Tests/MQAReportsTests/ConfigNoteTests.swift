import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis

/// A report made under a tuned `--config` says so (the same meeting gave
/// 35 incidents under one and 36 under the defaults, and nothing told the
/// two reports apart); under the defaults it keeps its shape.
@Suite struct ConfigNoteTests {
    @Test func aReportUnderAnotherConfigNamesIt() throws {
        var config = TierConfig()
        config.hysteresis = 0.2
        config.upDwell = 3
        let report = MeetingReport(log: Fixtures.sfu, config: config)
        #expect(report.markdown.contains("Tier config (--config): hysteresis 0.2, upDwell 3; the other keys at their defaults."))
        #expect(report.html.contains("<p>Tier config (--config): hysteresis 0.2, upDwell 3;"))
        #expect(report.json.rendered().contains(#""config":{"thresholds":[4,3.6,3.1,2.6],"hysteresis":0.2,"#))
        let tiers = TiersReport(MeetingAnalysis.analyze(Fixtures.sfu, config: config)).markdown
        #expect(tiers.contains("Tier config (--config): hysteresis 0.2, upDwell 3;"))

        let plain = MeetingReport(log: Fixtures.sfu, config: TierConfig())
        #expect(!plain.markdown.contains("Tier config"))
        #expect(!plain.json.rendered().contains(#""config":"#))
    }
}

/// The fleet ranking and the track reports, whose figures a config moves
/// too, name it as the meeting report does.
@Suite struct ConfigNoteFleetTrackTests {
    @Test func fleetAndTrackNameTheConfig() throws {
        var config = TierConfig()
        config.emodel.bpl = 30
        config.mos = .emodel
        let report = MeetingReport(log: Fixtures.sfu, config: config)
        var fleet = FleetReport(entries: [FleetEntry(report)])
        fleet.config = config
        #expect(fleet.markdown.contains("Tier config (--config): mos emodel, emodel.bpl 30; the other keys at their defaults."))
        #expect(fleet.html.contains("<p>Tier config (--config): mos emodel, emodel.bpl 30;"))
        #expect(fleet.json.rendered().contains(#""config":{"#))
        let track = try TrackReport(meeting: report, track: "carol-cam")
        #expect(track.markdown.contains("Tier config (--config): mos emodel, emodel.bpl 30;"))
        #expect(track.json.rendered().contains(#""config":{"#))
        // Under the defaults, nothing.
        let plain = try TrackReport(meeting: MeetingReport(log: Fixtures.sfu, config: TierConfig()), track: "carol-cam")
        #expect(!plain.markdown.contains("Tier config") && !plain.json.rendered().contains(#""config":"#))
        #expect(!FleetReport(entries: [FleetEntry(report)]).markdown.contains("Tier config"))
    }
}

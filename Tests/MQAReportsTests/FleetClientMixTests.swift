import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis

/// The fleet table's platform and SDK columns (`FleetClientMix`).
@Suite struct FleetClientMixTests {
    func client(_ platform: String?, _ sdk: String?) -> ParticipantContext.ClientInfo {
        var c = ParticipantContext.ClientInfo()
        c.platform = platform
        c.sdkVersion = sdk
        return c
    }

    @Test func countsEachValueMostFirstAndLeavesOutTheUnknown() {
        let mix = FleetClientMix([client("ios", "5.2.3"), client("android", "5.10.0"), client("ios", "5.9.1"),
                                  client(nil, nil), client("web", "5.2.3")])
        #expect(mix.platforms.map(\.value) == ["ios", "android", "web"])
        #expect(mix.platforms.map(\.participants) == [2, 1, 1])
        // Ties: newest version first, compared as numbers (5.10 > 5.9).
        #expect(mix.sdkVersions.map(\.value) == ["5.2.3", "5.10.0", "5.9.1"])
        #expect(FleetClientMix.text(mix.platforms) == "ios ×2, android ×1, web ×1")
        #expect(FleetClientMix.text([]) == "—")
        #expect(FleetReport.csvMix(mix.sdkVersions) == "5.2.3:2;5.10.0:1;5.9.1:1")
    }

    @Test func aReportAndItsLogGiveTheSameMix() {
        // alice and bob log their client (format 1.2); carol's app predates
        // it and is counted nowhere.
        let log = Fixtures.withContext
        let report = MeetingReport(log: log, config: TierConfig())
        #expect(FleetClientMix(report.context) == FleetClientMix(log))
        let entry = FleetEntry(report)
        #expect(entry.header.participants == 3)
        #expect(FleetClientMix.text(entry.clients.platforms) == "ios ×1, windows ×1")
        #expect(FleetClientMix.text(entry.clients.sdkVersions) == "5.3.0 ×1, 5.2.3 ×1")
        let fleet = FleetReport(entries: [entry, FleetEntry(MeetingReport(log: Fixtures.sfu, config: TierConfig()))])
        let json = fleet.json.rendered()
        #expect(json.contains(#""platforms":{"ios":1,"windows":1},"sdkVersions":{"5.3.0":1,"5.2.3":1}"#))
        // A log without the fields claims nothing: an empty object, "—".
        #expect(json.contains(#""platforms":{},"sdkVersions":{}"#))
        #expect(fleet.markdown.contains("| ios ×1, windows ×1 | 5.3.0 ×1, 5.2.3 ×1 |"))
        #expect(fleet.csv.contains(",3,ios:1;windows:1,5.3.0:1;5.2.3:1,"))
    }
}

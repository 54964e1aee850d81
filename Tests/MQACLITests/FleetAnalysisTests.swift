import Foundation
import Testing
@testable import MQACLI
import MQABase
import MQAAnalysis
import MQAStore
import MQAReports

/// `report fleet` analyses groups of meetings on other threads while it
/// reads the next, and a big meeting alone, client by client: the entries
/// are those of each meeting analysed alone, in the store's order,
/// whatever the groups.
@Suite struct FleetAnalysisTests {
    @Test func groupsGiveEachMeetingsOwnEntryInOrder() throws {
        let s = Scratch()
        let store = try EventStore(path: s.simulatedStore(meetings: 9, seed: 4))
        let err = try OutputSink(path: s.file("err.txt"))
        let context = CommandContext(environment: [:], stdout: err, stderr: err)
        let ids = try store.meetings(startingIn: (nil, nil))
        #expect(ids.count == 9)
        var config = TierConfig()
        config.thresholds = [4.1, 3.7, 3.2, 2.7]
        let alone = try ids.map { id in
            let m = try ReportOptions.analysedMeeting(store, id, config: config, context)
            return FleetEntry(header: m.header, analysis: m.analysis, clients: m.clientMix)
        }
        let sizes = try store.storedItemCounts().values.sorted()
        // Everything in one group; groups of about one meeting; every
        // meeting alone; and a limit between, so both paths mix.
        for limit in [Int.max, sizes[0], 0, sizes[sizes.count / 2]] {
            var seen: [FleetEntry] = []
            try FleetAnalysis.forEach(ids, store: store, config: config, context, progress: nil, groupItems: limit) { seen.append($0) }
            #expect(seen == alone, "groupItems \(limit)")
        }
        try err.close()
    }
}

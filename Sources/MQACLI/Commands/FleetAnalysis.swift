import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// The fleet's meetings analysed on every core, in their order: this
/// thread reads a group of meetings (SQLite stays on it) while the
/// group read before is analysed on the others, so reading and the tier
/// machine overlap. A meeting of more than `groupItems` stored reports
/// and events goes alone and is read a client at a time, as `report
/// meeting ID` reads it.
///
/// The entries are those of each meeting analysed alone
/// (`ReportOptions.analysedMeeting`): a whole log's analysis equals the
/// one read a client at a time.
enum FleetAnalysis {
    /// Stored items a group holds at most: ~60 bytes each as a log, so two
    /// groups in flight stay near 30 MB.
    static let groupItems = 250_000

    /// Calls `each` with every meeting of `ids`, in order; `progress` counts
    /// them. `groupItems`: a test's, to take every path on a small store.
    static func forEach(_ ids: [String], store: EventStore, config: TierConfig, _ context: CommandContext,
                        progress: ProgressBar?, groupItems: Int = groupItems, _ each: (FleetEntry) -> Void) throws {
        let sizes = try store.storedItemCounts()
        var done = 0
        try BackgroundMap<FleetEntry>.pipeline(
            ids, maxCount: ReportMeetingCommand.groupMeetings, maxItems: groupItems, items: { sizes[$0] ?? 0 },
            read: { try ReportOptions.meetingLog(store, $0, context, progress: progress) },
            transform: { log in
                let m = AnalysedMeeting(log: log, analysis: MeetingAnalysis.analyze(log, config: config, keepingTimelines: false),
                                        lastReports: nil)
                return FleetEntry(header: m.header, analysis: m.analysis, clients: m.clientMix)
            },
            alone: { id in
                let m = try ReportOptions.analysedMeeting(store, id, config: config, context, progress: progress)
                return FleetEntry(header: m.header, analysis: m.analysis, clients: m.clientMix)
            },
            deliver: { _, entry in
                each(entry)
                done += 1
                progress?.update(count: done, total: ids.count, noun: "meetings")
            })
    }
}

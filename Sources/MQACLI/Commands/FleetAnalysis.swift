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
        var pending: BackgroundMap<FleetEntry>?
        // A group in flight is waited for however the loop ends: its
        // workers never outlive the command.
        defer { pending?.wait() }
        func flush() {
            guard let group = pending else { return }
            pending = nil
            for entry in group.results { each(entry) }
        }
        var i = 0
        while i < ids.count {
            if (sizes[ids[i]] ?? 0) > groupItems {
                flush()
                let m = try ReportOptions.analysedMeeting(store, ids[i], config: config, context, progress: progress)
                each(FleetEntry(header: m.header, analysis: m.analysis, clients: m.clientMix))
                i += 1
                progress?.update(count: i, total: ids.count, noun: "meetings")
                continue
            }
            let end = ReportMeetingCommand.groupEnd(ids, from: i, items: { sizes[$0] ?? 0 }, limit: groupItems)
            let logs: [MeetingLog]
            do {
                logs = try ids[i..<end].map { try ReportOptions.meetingLog(store, $0, context, progress: progress) }
            } catch {
                flush()
                throw error
            }
            flush()
            pending = BackgroundMap(logs) { log in
                let m = AnalysedMeeting(log: log, analysis: MeetingAnalysis.analyze(log, config: config, keepingTimelines: false),
                                        lastReports: nil)
                return FleetEntry(header: m.header, analysis: m.analysis, clients: m.clientMix)
            }
            i = end
            progress?.update(count: i, total: ids.count, noun: "meetings")
        }
        flush()
    }
}

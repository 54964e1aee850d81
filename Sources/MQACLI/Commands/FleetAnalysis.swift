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
        var pending: Group?
        // A group in flight is waited for however the loop ends: its
        // workers never outlive the command.
        defer { pending?.wait() }
        func flush() {
            guard let group = pending else { return }
            pending = nil
            group.wait()
            for entry in group.entries { each(entry) }
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
            let logs = try ids[i..<end].map { try ReportOptions.meetingLog(store, $0, context, progress: progress) }
            flush()
            pending = Group(logs, config: config)
            i = end
            progress?.update(count: i, total: ids.count, noun: "meetings")
        }
        flush()
    }

    /// One group's analyses, made on other threads from the moment it exists.
    final class Group: @unchecked Sendable {
        private let done = DispatchGroup()
        private let slots: ConcurrentSlots<FleetEntry>
        private let count: Int

        init(_ logs: [MeetingLog], config: TierConfig) {
            count = logs.count
            let slots = ConcurrentSlots<FleetEntry>(count: logs.count)
            self.slots = slots
            DispatchQueue.global().async(group: done) {
                DispatchQueue.concurrentPerform(iterations: logs.count) { k in
                    let log = logs[k]
                    let m = AnalysedMeeting(log: log, analysis: MeetingAnalysis.analyze(log, config: config, keepingTimelines: false),
                                            lastReports: nil)
                    slots.set(k, FleetEntry(header: m.header, analysis: m.analysis, clients: m.clientMix))
                }
            }
        }

        func wait() { done.wait() }

        /// The entries in the group's order; call after `wait`.
        var entries: [FleetEntry] { (0..<count).map { slots.get($0)! } }
    }
}

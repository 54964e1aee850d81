import MQABase
import MQAModel
import MQAAnalysis

/// Which platforms and SDK versions a meeting's participants ran, and how
/// many of each: the fleet table's "who was it" columns. A participant
/// whose joins never named the field is not counted (format 1.0/1.1 logs
/// name none), so the counts may add up to fewer than the participants.
public struct FleetClientMix: Sendable, Equatable {
    /// A value and how many participants had it.
    public struct Count: Sendable, Equatable {
        public var value: String
        public var participants: Int
    }

    /// Most participants first; ties in text order.
    public var platforms: [Count]
    /// Most participants first; ties newest version first.
    public var sdkVersions: [Count]

    public init(platforms: [Count] = [], sdkVersions: [Count] = []) {
        self.platforms = platforms
        self.sdkVersions = sdkVersions
    }

    /// From the participants' client fields (what held for their figures).
    public init(_ clients: [ParticipantContext.ClientInfo]) {
        platforms = FleetClientMix.counts(clients.compactMap(\.platform)) { $0 < $1 }
        sdkVersions = FleetClientMix.counts(clients.compactMap(\.sdkVersion)) { VersionOrder.less($1, $0) }
    }

    /// From a report's context: one entry per client of the meeting.
    public init(_ context: MeetingContext) { self.init(context.participants.map(\.client)) }

    /// From a meeting's log, reading only its joins (the fleet ranking
    /// builds no context).
    public init(_ log: MeetingLog) {
        self.init(log.clients.map { ParticipantContext.ClientInfo($0) })
    }

    static func counts(_ values: [String], tie: (String, String) -> Bool) -> [Count] {
        var n: [String: Int] = [:]
        for v in values { n[v, default: 0] += 1 }
        return n.map { Count(value: $0.key, participants: $0.value) }
            .sorted { $0.participants != $1.participants ? $0.participants > $1.participants : tie($0.value, $1.value) }
    }

    /// `"ios ×3, android ×2"`; `"—"` when none is known.
    static func text(_ counts: [Count]) -> String {
        counts.isEmpty ? "—" : counts.map { "\($0.value) ×\($0.participants)" }.joined(separator: ", ")
    }

    /// `text` as a table cell: each value stays on one line with its
    /// count, so that a narrow column breaks between values.
    static func cell(_ counts: [Count]) -> ReportCell {
        guard !counts.isEmpty else { return .text(text(counts)) }
        let html = counts.map { HTMLPage.nowrap("\($0.value) ×\($0.participants)") }.joined(separator: ", ")
        return .markup(html: html, text: text(counts))
    }

    /// `{"ios": 3, "android": 2}` in the order shown.
    static func json(_ counts: [Count]) -> JSON {
        .object(counts.map { ($0.value, .int(Int64($0.participants))) })
    }
}

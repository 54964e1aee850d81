import MQABase
import MQAModel
import MQAAnalysis

/// One meeting's rows of the summary tables, in the tables' column order:
/// what ingest writes and what `mqa check` compares the stored rows with.
///
/// The meeting's row is made at once; participant and track rows are made
/// one at a time from the analysis as they are read. Held as arrays, the
/// rows of a meeting of 100,000 clients were 55 MB on top of its analysis.
struct SummaryRows {
    let meetingID: Int64
    let meeting: [SQLValue]
    private let participants: [ParticipantAnalysis]
    private let subscriptions: [Subscription]

    /// `log` gives the title and the client count (its reports are not read).
    init(meetingID: Int64, log: MeetingLog, analysis a: MeetingAnalysis) {
        self.meetingID = meetingID
        let span = a.span
        let score = FleetScore(a)
        meeting = [
            .int(meetingID), log.title.map { .text($0) } ?? .null, a.engine.map { .text($0) } ?? .null,
            span.map { .int($0.first) } ?? .null, span.map { .int($0.last) } ?? .null,
            .int(Int64(log.clients.count)), .int(Int64(a.participants.reduce(0) { $0 + $1.warmReports })),
            .int(Int64(a.subscriptions.reduce(0) { $0 + $1.stallCount })),
            .int(score.stalledMs), .int(score.lowTierMs), .int(Int64(score.abnormalDisconnects)),
            .text(JSON.array(a.issues.map { .string($0.code.rawValue) }).rendered()),
        ]
        participants = a.participants
        subscriptions = a.subscriptions
    }

    /// Calls `body` with each row of `table`, in order.
    func forEach(_ table: SummaryTable, _ body: ([SQLValue]) throws -> Void) rethrows {
        switch table {
        case .meeting: try body(meeting)
        case .participant: for p in participants { try body(participantRow(p)) }
        case .track: for s in subscriptions { try body(trackRow(s)) }
        }
    }

    private func participantRow(_ p: ParticipantAnalysis) -> [SQLValue] {
        func real(_ v: Double?) -> SQLValue { v.map { .double($0) } ?? .null }
        var values: [SQLValue] = []
        values.reserveCapacity(21 + Tier.reportOrder.count)
        values += [.int(meetingID), .text(p.uid), .int(Int64(p.connections)),
                   .int(Int64(p.warmReports)), .int(Int64(p.coldReports))]
        values += [real(p.mos?.mean), real(p.mos?.p5), real(p.mos?.p50), real(p.mos?.p95)]
        values += [real(p.lossPct?.mean), real(p.lossPct?.p95), real(p.rttMs?.mean), real(p.rttMs?.p95)]
        values += [real(p.jitterMs?.mean), real(p.jitterMs?.p95), real(p.bitrateKbps?.mean), real(p.bitrateKbps?.p5)]
        for tier in Tier.reportOrder { values.append(.int(p.tierMs[tier])) }
        values += [.int(Int64(p.tierChanges)), .int(Int64(p.flaps)), real(p.sdkTierAgreement), .int(Int64(p.disconnects.count))]
        return values
    }

    private func trackRow(_ s: Subscription) -> [SQLValue] {
        let underGood = s.stalls.filter { $0.tier == .excellent || $0.tier == .good }.count
        return [.int(meetingID), .text(s.subscriber), .text(s.publisher), .text(s.track),
                s.kind.map { .text($0) } ?? .null, .int(s.subscribeTs), .int(s.endTs),
                s.firstFrameTs.map { .int($0) } ?? .null, .int(Int64(s.stallCount)),
                .int(s.stalledMs), .double(s.stallRatio), .int(Int64(underGood)),
                .int(Int64(s.stalls.filter(\.open).count))]
    }
}

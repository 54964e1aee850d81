import Testing
@testable import MQAReports
@testable import MQAAnalysis

/// `IssuePlacement.place` on hand-made incidents: of the incidents showing
/// the issue's trouble (ranked most impact first), the one holding its
/// instant, else the first; none, no incident.
@Suite struct IssuePlacementRuleTests {
    private func incident(_ uid: String, _ start: Int64, _ end: Int64, _ kinds: [IncidentKind]) -> Incident {
        Incident(startTs: start, endTs: end, uid: uid, track: nil, kinds: kinds, cause: .ownNetwork, evidence: IncidentEvidence())
    }

    @Test func theCandidateHoldingTheInstantWinsOverAHigherRankedOne() {
        let ranked: [(number: Int, incident: Incident)] = [
            (3, incident("alice", 0, 1_000, [.loss])),
            (1, incident("bob", 4_000, 6_000, [.loss])),
            (2, incident("alice", 4_000, 6_000, [.lowTier])),
        ]
        let atFive = Issue(code: .lowMOS, uid: "alice", ts: 5_000, detail: "")
        #expect(IssuePlacement.place(atFive, ranked) == .incident(2))
        // An instant no candidate holds, or none at all: the first candidate.
        let atNine = Issue(code: .lowMOS, uid: "alice", ts: 9_000, detail: "")
        #expect(IssuePlacement.place(atNine, ranked) == .incident(3))
        let noInstant = Issue(code: .lowMOS, uid: "alice", detail: "")
        #expect(IssuePlacement.place(noInstant, ranked) == .incident(3))
        // Loss matches only an incident with a loss spike: alice's first.
        let loss = Issue(code: .highPacketLoss, uid: "alice", ts: 5_000, detail: "")
        #expect(IssuePlacement.place(loss, ranked) == .incident(3))
        // No incident shows high RTT: no incident.
        let rtt = Issue(code: .highLatency, uid: "alice", ts: 5_000, detail: "")
        #expect(IssuePlacement.place(rtt, ranked) == .noIncident)
    }

    /// `reconnects` goes under a drop that came back, `abnormal_disconnect`
    /// under one with an error, whatever their impact: a failed drop that
    /// did not come back outweighs a clean return, and took both.
    @Test func aReturnAndAFailureEachGetTheirOwnIssue() {
        var back = IncidentEvidence()
        back.disconnects = 1
        back.awayMs = 5_000
        var failed = IncidentEvidence()
        failed.disconnects = 1
        failed.abnormalDisconnects = 1
        failed.disconnectError = "connection_failed"
        let ranked: [(number: Int, incident: Incident)] = [
            (2, Incident(startTs: 100_000, endTs: 100_000, uid: "a", track: nil, kinds: [.disconnect], cause: .disconnect, evidence: failed)),
            (1, Incident(startTs: 10_000, endTs: 15_000, uid: "a", track: nil, kinds: [.disconnect], cause: .disconnect, evidence: back)),
        ]
        #expect(IssuePlacement.place(Issue(code: .reconnects, uid: "a", detail: ""), ranked) == .incident(1))
        #expect(IssuePlacement.place(Issue(code: .abnormalDisconnect, uid: "a", ts: 100_000, detail: ""), ranked) == .incident(2))
    }

    /// A viewer's loss that was a sender's gap counted late lives in the
    /// track's incident; the viewer's loss and MOS issues go there too,
    /// and the text says whose it was.
    @Test func lateLossIssuesGoUnderTheTracksIncident() {
        var e = IncidentEvidence()
        e.stallCount = 2
        e.subscribers = ["alice", "carol"]
        e.publishers = ["bob"]
        e.lateLossPct = 82.2
        e.lateLossViewers = ["alice", "carol"]
        let track = Incident(startTs: 40_000, endTs: 49_000, uid: "bob", track: "bob-cam", kinds: [.stall], cause: .publisher, evidence: e)
        let ranked: [(number: Int, incident: Incident)] = [(1, track), (2, incident("bob", 48_000, 50_000, [.loss]))]
        #expect(IssuePlacement.place(Issue(code: .highPacketLoss, uid: "carol", detail: ""), ranked) == .incident(1))
        #expect(IssuePlacement.place(Issue(code: .lowMOS, uid: "alice", detail: ""), ranked) == .incident(1))
        // Not bob's own loss: that is his own incident's.
        #expect(IssuePlacement.place(Issue(code: .highPacketLoss, uid: "bob", detail: ""), ranked) == .incident(2))
        #expect(IncidentText.evidence(track).contains("alice, carol counted the gap as loss when the stream came back (up to 82.2%)"))
    }
}

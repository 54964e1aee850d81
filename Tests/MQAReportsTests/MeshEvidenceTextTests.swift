import Testing
@testable import MQAReports
@testable import MQAAnalysis

/// How rule 2c's evidence reads (Docs/incidents.md, "Mesh calls: whose
/// loss"): the viewer's connection with the sender, its clean ones, and
/// the others who saw the same from the sender.
@Suite struct MeshEvidenceTextTests {
    static func incident(_ set: (inout IncidentEvidence) -> Void) -> Incident {
        var e = IncidentEvidence()
        e.publishers = ["carol"]
        e.cleanConnections = 1
        set(&e)
        return Incident(startTs: 0, endTs: 1000, uid: "bob", track: nil, kinds: [.rtt], cause: .publisher, evidence: e)
    }

    @Test func lossAndRoundTripReadApart() {
        let loss = IncidentText.evidence(Self.incident { $0.alsoLossy = ["alice"]; $0.alsoLossyMaxPct = 18.5 })
        #expect(loss == "only its connection from carol lost packets (1 other connection clean); alice lost carol's packets too (up to 18.5%)")
        let rtt = IncidentText.evidence(Self.incident { $0.alsoSlow = ["alice"]; $0.alsoSlowMaxRttMs = 1200 })
        #expect(rtt == "only its connection with carol had RTT over 400 ms (1 other connection clean); carol's connection with alice too (up to 1200 ms)")
        let two = IncidentText.evidence(Self.incident { $0.cleanConnections = 2; $0.alsoSlow = ["alice", "dave"]; $0.alsoSlowMaxRttMs = 900 })
        #expect(two == "only its connection with carol had RTT over 400 ms (2 other connections clean); carol's connections with alice, dave too (up to 900 ms)")
        // JSON: the fields of the rule that applied, not the other's.
        #expect("\(Self.incident { $0.alsoSlow = ["alice"]; $0.alsoSlowMaxRttMs = 1200 }.evidence.json)".contains("alsoSlowMaxRttMs"))
        #expect(!"\(Self.incident { $0.alsoLossy = ["alice"]; $0.alsoLossyMaxPct = 18.5 }.evidence.json)".contains("alsoSlow"))
    }
}

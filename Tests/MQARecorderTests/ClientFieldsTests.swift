import Foundation
import Testing

@testable import MQARecorder
import MQABase
import MQAModel

/// Format 1.2 through the recorder: the client fields of `meetingJoined`,
/// `networkChanged`, and the p2p engine. Every line passes the pipeline's
/// validator, with hostile strings too (the fields allow 1–256 characters).
@Suite struct ClientFieldsTests {
    @Test func theNewCallsWriteTheSpecsLines() throws {
        let dir = TempDir()
        let r = try recorder(dir, clock: StepClock(start: 1_795_946_400_000))
        r.meetingJoined(engine: .sfu, title: "Weekly sync", platform: .ios, osVersion: "17.4.1", sdkVersion: "5.3.0",
                        appVersion: "2026.11.2", device: "iPhone15,2", netType: .wifi)
        r.networkChanged(netType: .cellular, detail: "wifi→cellular")
        r.networkChanged(netType: .none)
        r.meetingJoined(engine: .p2p, sdkVersion: "5.3.1")
        r.meetingJoined(engine: .cdn, platform: .web, netType: .ethernet)
        r.close()
        let all = lines(in: dir)
        #expect(all.map(\.text) == [
            #"{"ts":1795946400000,"event":"meeting_join","meeting":"m-42","uid":"alice","engine":"sfu","title":"Weekly sync","platform":"ios","osVersion":"17.4.1","sdkVersion":"5.3.0","appVersion":"2026.11.2","device":"iPhone15,2","netType":"wifi"}"#,
            #"{"ts":1795946400001,"event":"network_change","meeting":"m-42","uid":"alice","netType":"cellular","detail":"wifi→cellular"}"#,
            #"{"ts":1795946400002,"event":"network_change","meeting":"m-42","uid":"alice","netType":"none"}"#,
            #"{"ts":1795946400003,"event":"meeting_join","meeting":"m-42","uid":"alice","engine":"p2p","sdkVersion":"5.3.1"}"#,
            #"{"ts":1795946400004,"event":"meeting_join","meeting":"m-42","uid":"alice","engine":"cdn","platform":"web","netType":"ethernet"}"#,
        ])
        #expect(all.allSatisfy { $0.outcome == .event })
    }

    /// Every platform and network, and hostile text in every string field:
    /// empty strings are left out, long ones cut to 256 characters, so no
    /// line is rejected (`checkedLines` records any reject as an issue).
    @Test func everyValueValidates() throws {
        let dir = TempDir()
        let r = try recorder(dir)
        var n = 0
        for (i, s) in ValidityTests.hostile.enumerated() {
            let platform = ClientPlatform.allCases[i % ClientPlatform.allCases.count]
            let net = NetworkType.allCases[i % NetworkType.allCases.count]
            r.meetingJoined(engine: .sfu, title: s, platform: platform, osVersion: s, sdkVersion: s, appVersion: s, device: s, netType: net)
            r.meetingJoined(engine: .p2p, device: s)
            r.networkChanged(netType: net, detail: s)
            r.networkChanged(netType: net)
            n += 4
        }
        r.close()
        let all = lines(in: dir)
        #expect(all.count == n)
        for line in all {
            #expect(line.outcome == .event, "\(line.text)")
            let kind = try #require(RecorderEvent.allCases.first { $0.name == line.event })
            let keys = Set(line.json.keys).subtracting(["ts", "event", "meeting", "uid"])
            #expect(keys.isSuperset(of: kind.requiredFields), "\(line.text)")
            #expect(keys.isSubset(of: kind.requiredFields + kind.optionalFields), "\(line.text)")
            for key in ["osVersion", "sdkVersion", "appVersion", "device", "detail"] {
                guard let v = line.json[key] as? String else { continue }
                #expect(!v.isEmpty && v.unicodeScalars.count <= 256, "\(key) in \(line.text)")
            }
        }
        // The 5000-character text came out at the limit.
        #expect(all.contains { ($0.json["device"] as? String)?.unicodeScalars.count == 256 })
        // The empty text left the fields out.
        #expect(all.contains { $0.event == "meeting_join" && $0.json["title"] as? String == "" && $0.json["osVersion"] == nil })
    }

    @Test func theRecordersTableNamesTheNewFields() {
        #expect(RecorderEvent.networkChange.name == "network_change")
        #expect(RecorderEvent.networkChange.requiredFields == ["netType"])
        #expect(RecorderEvent.networkChange.optionalFields == ["detail"])
        let join = RecorderEvent.meetingJoin.requiredFields + RecorderEvent.meetingJoin.optionalFields
        #expect(join == EventKind.meetingJoin.descriptor.fields.map(\.name))
        #expect(ClientPlatform.allCases.map(\.name) == ["ios", "android", "macos", "windows", "linux", "web"])
        #expect(NetworkType.allCases.map(\.name) == EventCatalog.netTypes)
    }
}

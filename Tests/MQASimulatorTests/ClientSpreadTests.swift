import Testing
@testable import MQASimulator
import MQABase
import MQAModel
import MQAAnalysis
import MQAIngest

/// Format 1.2 in the simulator: a spread of platforms, SDK and app
/// versions, devices and networks on `meeting_join`, network switches
/// mid-call, p2p calls, all valid and all deterministic.
@Suite struct ClientSpreadTests {
    /// The default demo run (seed 1, 24 meetings), through the real validator.
    @Test func aSeededRunHasASpreadOfClients() throws {
        let simulator = Simulator()
        var parser = LineParser(nowMs: 1_800_000_000_000)
        var platforms: Set<String> = [], sdks: Set<String> = [], apps: Set<String> = [], devices: Set<String> = []
        var nets: Set<String> = [], changes: [String] = [], engines: Set<String> = []
        var joins = 0, joinsWithFields = 0
        var rejected: [String] = []
        var payloadKeysOutsideTheTable: Set<String> = []
        for index in 0..<Simulator.defaultMeetings {
            for file in simulator.meeting(index).files {
                for line in file.contents.split(separator: 0x0A) {
                    let bytes = Array(line)
                    let (outcome, payload) = bytes.withUnsafeBufferPointer { b -> (LineOutcome, EventPayload?) in
                        let outcome = parser.parse(b)
                        return (outcome, outcome == .event ? parser.payload(in: b) : nil)
                    }
                    if case .rejected(let reason) = outcome {
                        rejected.append(reason + ": " + String(decoding: bytes.prefix(200), as: UTF8.self))
                        continue
                    }
                    guard outcome == .event, let p = payload else { continue }
                    switch parser.kind {
                    case .meetingJoin:
                        joins += 1
                        engines.insert(p.string("engine") ?? "")
                        if let v = p.string("platform") { platforms.insert(v); joinsWithFields += 1 }
                        if let v = p.string("sdkVersion") { sdks.insert(v) }
                        if let v = p.string("appVersion") { apps.insert(v) }
                        if let v = p.string("device") { devices.insert(v) }
                        if let v = p.string("netType") { nets.insert(v) }
                    case .networkChange:
                        changes.append((p.string("netType") ?? "") + " " + (p.string("detail") ?? ""))
                    default: break
                    }
                    if let o = LineSelfCheck.parse(Substring(String(decoding: bytes, as: UTF8.self))),
                       o["platform"] != nil && parser.kind != .meetingJoin {
                        payloadKeysOutsideTheTable.insert(parser.kind.name)  // the old `platform` extra
                    }
                }
            }
        }
        #expect(rejected.isEmpty, "\(rejected.prefix(5))")
        #expect(platforms.count >= 3, "\(platforms)")
        #expect(sdks.count >= 2, "\(sdks)")
        #expect(apps.count >= 2 && devices.count >= 5, "\(apps) \(devices)")
        #expect(nets.isSuperset(of: ["wifi", "cellular", "ethernet"]), "\(nets)")
        #expect(!changes.isEmpty)
        #expect(changes.allSatisfy { $0 == "cellular wifi→cellular" || $0 == "wifi cellular→wifi" }, "\(changes)")
        // Most apps log the client fields; some older builds do not.
        #expect(joinsWithFields > joins / 2 && joinsWithFields < joins, "\(joinsWithFields) of \(joins)")
        #expect(payloadKeysOutsideTheTable.isEmpty, "\(payloadKeysOutsideTheTable)")
        #expect(engines.contains("sfu") && engines.contains("cdn"), "\(engines)")
    }

    /// Half the two-party SFU calls run peer to peer, with the quality feed.
    @Test func twoPartyCallsRunPeerToPeer() throws {
        let p = SimulationParameters.default
        let plans = (0..<200).map { MeetingPlan(seed: Simulator.defaultSeed, index: $0, parameters: p) }
        let p2p = plans.filter { $0.engine == .p2p }
        let twoParty = plans.filter { $0.participants.count == 2 && $0.engine != .cdn }
        #expect(Engine.p2p.hasQualityFeed && Engine.sfu.hasQualityFeed && !Engine.cdn.hasQualityFeed)
        #expect(p2p.allSatisfy { $0.participants.count == 2 })
        #expect(!p2p.isEmpty && p2p.count < twoParty.count, "\(p2p.count) of \(twoParty.count)")
        let first = try #require(p2p.first)
        let files = Simulator().meeting(first.index).files
        var parser = LineParser(nowMs: 1_800_000_000_000)
        var reports = 0, speakers = 0
        for file in files {
            for line in file.contents.split(separator: 0x0A) {
                let (outcome, payload) = Array(line).withUnsafeBufferPointer { b -> (LineOutcome, EventPayload?) in
                    let outcome = parser.parse(b)
                    return (outcome, outcome == .event ? parser.payload(in: b) : nil)
                }
                if case .rejected(let reason) = outcome { Issue.record(Comment(rawValue: reason)) }
                if outcome == .event && parser.kind == .qualityReport { reports += 1 }
                if outcome == .event && parser.kind == .activeSpeakersChange { speakers += 1 }
                if outcome == .event && parser.kind == .meetingJoin { #expect(payload?.string("engine") == "p2p") }
            }
        }
        #expect(reports > 0 && speakers > 0)
    }

    /// An iOS client's context events and its platform agree; a switch is
    /// inside the client's first connection.
    @Test func profilesAgreeWithTheRestOfTheLog() {
        for m in Fleet.all {
            for f in m.logs {
                let join = f.events("meeting_join").first
                let platform = join?["platform"] as? String
                let iOSOnly = f.objects.contains { ["audio_route_change", "audio_interruption", "share_broadcast_start"].contains($0["event"] as? String ?? "") }
                if iOSOnly && platform != nil { #expect(platform == "ios", "\(m.id) \(f.uid)") }
                if platform == "ios" || platform == "android" {
                    #expect(m.truth.clients.first { $0.uid == f.uid }?.mobile == true)
                }
                for change in f.events("network_change") {
                    let ts = Fleet.ts(change)
                    let first = m.truth.clients.first { $0.uid == f.uid }?.connections.first
                    #expect(first.map { ts > $0.start && ts < $0.end } == true)
                    #expect(platform == nil || platform == "ios" || platform == "android")
                }
            }
        }
    }

    @Test func theSpreadIsDeterministic() {
        let a = Simulator(seed: 7, meetings: 6), b = Simulator(seed: 7, meetings: 6)
        for i in 0..<6 {
            #expect(a.meeting(i).files.map(\.contents) == b.meeting(i).files.map(\.contents))
        }
    }
}

import Foundation
import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQATestSupport

/// Format 1.2 in the meeting report: each participant's client (platform,
/// versions, device, networks) in the participants section of every
/// format, `network_change` on the timeline, and p2p meetings reported
/// with their quality feed.
@Suite struct ClientReportTests {
    static let report = MeetingReport(log: Fixtures.withContext, config: TierConfig())

    @Test func markdownShowsTheClients() throws {
        let md = Self.report.markdown
        let participants = try #require(md.range(of: "## Participants"))
        let clients = try #require(md.range(of: "### Clients"))
        let context = try #require(md.range(of: "## Context"))
        #expect(participants.upperBound <= clients.lowerBound && clients.upperBound <= context.lowerBound)
        #expect(md.contains("| uid   | platform | OS         | SDK   | app       | device             | network         |"))
        #expect(md.contains("| alice | ios      | 17.4.1     | 5.3.0 | 2026.11.2 | iPhone15,2         | wifi            |"))
        #expect(md.contains("| bob   | windows  | 10.0.22631 | 5.2.3 | 2026.10.2 | ThinkPad X1 Carbon | wifi → cellular |"))
        #expect(md.contains("| carol | —        | —          | —     | —         | —                  | —               |"))
        // On bob's timeline, and next to his poor stretch.
        #expect(md.contains("network changed to cellular (wifi→cellular)"))
        #expect(md.contains("network changed to cellular (wifi→cellular) 4 s before"))
        #expect(md.contains("network changes"))
    }

    @Test func htmlShowsTheClients() {
        let html = Self.report.html
        #expect(html.contains("<h3>Clients</h3>"))
        #expect(html.contains("<td>ThinkPad X1 Carbon</td>"))
        #expect(html.contains("<td>wifi → cellular</td>"))
        #expect(html.contains("network changed to cellular (wifi→cellular)"))
    }

    @Test func jsonHasTheClientFieldsInCamelCase() throws {
        let text = Self.report.json.rendered()
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let participants = try #require(root["participants"] as? [[String: Any]])
        let bob = try #require(participants.first { $0["uid"] as? String == "bob" })
        let client = try #require(bob["client"] as? [String: Any])
        #expect(client["platform"] as? String == "windows")
        #expect(client["osVersion"] as? String == "10.0.22631")
        #expect(client["sdkVersion"] as? String == "5.2.3")
        #expect(client["appVersion"] as? String == "2026.10.2")
        #expect(client["device"] as? String == "ThinkPad X1 Carbon")
        #expect(client["netType"] as? String == "wifi")
        #expect(bob["networks"] as? [String] == ["wifi", "cellular"])
        let changes = try #require((bob["context"] as? [String: Any])?["networkChanges"] as? [[String: Any]])
        #expect(changes.count == 1)
        #expect(changes.first?["netType"] as? String == "cellular")
        #expect(changes.first?["detail"] as? String == "wifi→cellular")
        let carol = try #require(participants.first { $0["uid"] as? String == "carol" })
        #expect((carol["client"] as? [String: Any])?["platform"] is NSNull)
    }

    /// Alice rejoins from a browser at +0:50: a row per client, each with
    /// the networks of its stretch, and `clientHistory` in the JSON (only
    /// for her: the others keep their shape).
    @Test func aRejoinAsAnotherClientGetsARowPerClient() throws {
        var log = Fixtures.withContext
        let i = try #require(log.clients.firstIndex { $0.uid == "alice" })
        let join = try #require(log.clients[i].events.first { $0.payload.kind == .meetingJoin })
        var values: [String: PayloadValue] = ["platform": .string("web"), "sdkVersion": .string("5.3.1"),
                                              "device": .string("Chrome 131"), "netType": .string("cellular")]
        values["engine"] = join.payload["engine"]
        var rejoin = join
        rejoin.ts = Fixtures.t0 + 50_000
        rejoin.payload = EventPayload(.meetingJoin, values)
        log.clients[i].events = (log.clients[i].events + [rejoin]).enumerated()
            .sorted { ($0.element.ts, $0.offset) < ($1.element.ts, $1.offset) }.map(\.element)
        let report = MeetingReport(log: log, config: TierConfig())
        let md = report.markdown
        #expect(md.contains("| alice                 | ios      | 17.4.1     | 5.3.0 | 2026.11.2 | iPhone15,2         | wifi            |"), "\(md)")
        // Another platform is another client: the OS and app the browser
        // did not name are unknown, not the iPhone's.
        #expect(md.contains("| alice, from +0:50.000 | web      | —          | 5.3.1 | —         | Chrome 131         | cellular        |"))
        #expect(report.html.contains("<td>alice, from +0:50.000</td>"))
        // Incident lines name the client she was on at their start; nobody
        // else's are named.
        #expect(report.clientLabel("alice", at: Fixtures.t0 + 40_000) == "iPhone15,2, SDK 5.3.0")
        #expect(report.clientLabel("alice", at: Fixtures.t0 + 50_000) == "Chrome 131, SDK 5.3.1")
        #expect(report.clientLabel("bob", at: Fixtures.t0 + 40_000) == nil)
        #expect(Self.report.clientLabel("alice", at: Fixtures.t0 + 40_000) == nil)

        // Only the app changed (an update, the same phone): the label says so.
        var updated = Fixtures.withContext
        let k = try #require(updated.clients.firstIndex { $0.uid == "alice" })
        var again = join
        again.ts = Fixtures.t0 + 50_000
        var fields: [String: PayloadValue] = ["platform": .string("ios"), "appVersion": .string("2026.12.0")]
        fields["engine"] = join.payload["engine"]
        again.payload = EventPayload(.meetingJoin, fields)
        updated.clients[k].events = (updated.clients[k].events + [again]).enumerated()
            .sorted { ($0.element.ts, $0.offset) < ($1.element.ts, $1.offset) }.map(\.element)
        let app = MeetingReport(log: updated, config: TierConfig())
        #expect(app.clientLabel("alice", at: Fixtures.t0 + 40_000) == "app 2026.11.2")
        #expect(app.clientLabel("alice", at: Fixtures.t0 + 55_000) == "app 2026.12.0")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(report.json.rendered().utf8)) as? [String: Any])
        let participants = try #require(root["participants"] as? [[String: Any]])
        let alice = try #require(participants.first { $0["uid"] as? String == "alice" })
        let history = try #require(alice["clientHistory"] as? [[String: Any]])
        #expect(history.map { $0["device"] as? String } == ["iPhone15,2", "Chrome 131"])
        #expect(history.map { $0["networks"] as? [String] } == [["wifi"], ["cellular"]])
        #expect(history.last?["ts"] as? Int64 == Fixtures.t0 + 50_000)
        #expect(participants.filter { $0["clientHistory"] != nil }.count == 1)
        // The unchanged fixture has none.
        #expect(!Self.report.json.rendered().contains("clientHistory"))
    }

    /// Joins of one millisecond are one moment, the last word holding (as
    /// the cohorts read them): a browser join undone in the same ms by an
    /// iPhone one is no client of its own.
    @Test func joinsOfOneMillisecondAreOneMoment() throws {
        func joins(_ list: [(Int64, String)]) throws -> MeetingContext {
            var log = Fixtures.withContext
            let i = try #require(log.clients.firstIndex { $0.uid == "alice" })
            let join = try #require(log.clients[i].events.first { $0.payload.kind == .meetingJoin })
            // "ios": her first join again, whole; another platform: named alone.
            let extra = list.map { dt, platform in
                var e = join
                e.ts = Fixtures.t0 + dt
                if platform != "ios" {
                    var values = ["platform": PayloadValue.string(platform)]
                    values["engine"] = join.payload["engine"]
                    e.payload = EventPayload(.meetingJoin, values)
                }
                return e
            }
            log.clients[i].events = (log.clients[i].events + extra).enumerated()
                .sorted { ($0.element.ts, $0.offset) < ($1.element.ts, $1.offset) }.map(\.element)
            return MeetingContext.build(log)
        }
        let undone = try joins([(50_000, "web"), (50_000, "ios")])
        #expect(undone.participant("alice")?.clientHistory == [])
        let moved = try joins([(50_000, "ios"), (50_000, "web"), (60_000, "web")])
        #expect(moved.participant("alice")?.clientHistory.map(\.client.platform) == ["ios", "web"])
        #expect(moved.participant("alice")?.clientHistory.last?.ts == Fixtures.t0 + 50_000)
    }

    /// A log without any 1.2 field shows no Clients table.
    @Test func noClientsTableWithoutTheFields() {
        let plain = MeetingReport(log: Fixtures.sfu, config: TierConfig())
        #expect(!plain.markdown.contains("### Clients"))
        #expect(!plain.html.contains("<h3>Clients</h3>"))
        #expect(!plain.markdown.contains("network changes"))
    }

    /// p2p has the quality feed (spec 1.2): the report is the sfu one's,
    /// engine aside, never the CDN's "no quality data".
    @Test func p2pMeetingsHaveQualityData() {
        let p2p = MeetingReport(log: Fixtures.p2p, config: TierConfig())
        let sfu = MeetingReport(log: Fixtures.sfu, config: TierConfig())
        #expect(p2p.hasQualityData)
        #expect(p2p.header.engine == "p2p")
        #expect(!p2p.markdown.contains(MeetingReport.noQualityData))
        #expect(p2p.analysis.participantsJSON == sfu.analysis.participantsJSON)
        // A chart per participant.
        #expect(Fixtures.p2p.clients.allSatisfy { p2p.html.contains("id=\"\(AnchorID.charts($0.uid))\"") })
        #expect(p2p.markdown.contains("### Quality"))
        #expect(FleetEntry(p2p).lowTierMs == FleetEntry(sfu).lowTierMs)
        #expect(FleetEntry(p2p).lowTierMs != nil)
    }

    /// A dump's connection context shows in its own table and in the
    /// participant's JSON; an event log's report has neither.
    @Test func connectionContextIsShownNotCounted() {
        var report = MeetingReport(log: Fixtures.sfu, config: TierConfig())
        let plain = report.markdown
        #expect(!plain.contains("### Connections"))
        let uid = report.analysis.participants[0].uid
        var c = ConnectionContext(file: "/d/a.log", connection: "PC_0")
        c.paths = ["host/udp", "relay/tcp"]
        c.limitedMs = ["cpu": 34_000, "bandwidth": 12_000]
        c.concealment = 0.021
        report.connections = [uid: [c]]
        let md = report.markdown
        #expect(md.contains("### Connections"))
        #expect(md.contains("host/udp → relay/tcp") && md.contains("cpu 34 s, bandwidth 12 s") && md.contains("2.1%"), "\(md)")
        #expect(report.html.contains("<h3>Connections</h3>"))
        #expect(report.json.rendered().contains(#""connectionContexts":[{"connection":"PC_0","paths":["host/udp","relay/tcp"],"limitedMs":{"cpu":34000,"bandwidth":12000},"concealment":0.021}]"#))
        // The spec's count keeps its key: one `connections`, a number.
        let rendered = report.json.rendered()
        let from = rendered.range(of: #""participants":[{"uid":"\#(uid)""#)!.upperBound
        let participant = rendered[from..<rendered.range(of: #""context":{"#, range: from..<rendered.endIndex)!.lowerBound]
        #expect(participant.components(separatedBy: #""connections":"#).count == 2 && participant.contains(#""connections":1"#), "\(participant)")
    }

    /// A publisher-side incident names what the publisher's dump says held
    /// its video back.
    @Test func publisherSideEvidenceCarriesThePublishersLimits() {
        var report = MeetingReport(log: Fixtures.sfu, config: TierConfig())
        guard let i = report.incidents.first(where: { $0.cause == .publisher }), let p = i.evidence.publishers.first else {
            Issue.record("the fixture has a publisher-side incident")
            return
        }
        #expect(!report.incidentEvidence(i).contains("held back"))
        var c = ConnectionContext(file: "/d/p.log", connection: "PC_0")
        c.limitedMs = ["cpu": 34_000]
        report.connections = [p: [c]]
        #expect(report.incidentEvidence(i).hasSuffix("\(p)'s video held back by cpu 34 s over the call"))
        #expect(report.markdown.contains("held back by cpu 34 s"))
        // A mesh sender's connections, each limited alike: one limit, not
        // "cpu 34 s; cpu 34 s"; limited differently: each named.
        var d = c
        d.connection = "PC_1"
        report.connections = [p: [c, d]]
        #expect(report.incidentEvidence(i).hasSuffix("\(p)'s video held back by cpu 34 s over the call, on each of its 2 connections"))
        d.limitedMs = ["cpu": 30_000, "bandwidth": 5_000]
        var idle = c
        idle.connection = "PC_2"
        idle.limitedMs = [:]
        report.connections = [p: [c, d, idle]]
        #expect(report.incidentEvidence(i).hasSuffix(
            "\(p)'s video held back by cpu 30 s–34 s, bandwidth 5 s over the call, on 2 of its 3 connections"))
    }

    /// A participant's stalls are told by whose video froze where the
    /// track's id does not say it (a browser's UUID); ids that begin with
    /// the sender's name stay as they are.
    @Test func stalledTracksAreToldByTheirSender() throws {
        let report = MeetingReport(log: Fixtures.sfu, config: TierConfig())
        let i = try #require(report.incidents.first { $0.track == nil && !$0.evidence.tracks.isEmpty })
        let owners = Dictionary(report.analysis.subscriptions.filter { $0.subscriber == i.uid }.map { ($0.track, $0.publisher) }) { a, _ in a }
        let plain = IncidentText.evidence(i)
        #expect(IncidentText.evidence(i, owners: owners) == plain, "simulated ids begin with the sender: \(plain)")
        let track = i.evidence.tracks[0]
        let uuid = "02f61e48-1069-4be8-b5a1-009dc1a2627f"
        var renamed = i
        renamed.evidence.tracks = [uuid]
        let told = IncidentText.evidence(renamed, owners: [uuid: owners[track] ?? "bob"])
        #expect(told.contains("of \(owners[track] ?? "bob")'s video") && !told.contains(uuid), "\(told)")
        // One id from two senders (an SFU's "cam"): whose is not guessed.
        var dan = ClientBuilder("dan")
        dan.join(Fixtures.t0)
        dan.reports(from: Fixtures.t0 + 2000, to: Fixtures.t0 + 30000, mos: 4.3)
        for sender in ["bob", "carol"] {
            dan.subscribe(Fixtures.t0 + 1000, sender, "cam")
            dan.status(Fixtures.t0 + 1500, sender, "cam", timedOut: false)
            dan.stall(sender, "cam", from: Fixtures.t0 + 10000, to: Fixtures.t0 + 14000)
        }
        dan.leave(Fixtures.t0 + 30000)
        let shared = MeetingReport(log: meeting([dan], id: "m-cam"), config: TierConfig())
        let own = try #require(shared.incidents.first { $0.uid == "dan" && $0.evidence.tracks == ["cam"] })
        let sentence = shared.incidentEvidence(own)
        #expect(sentence.contains(" of cam") && !sentence.contains("'s video"), "\(sentence)")
        // An id beginning with a one-letter sender's name is no name of it.
        #expect(IncidentText.names("bob-cam", "bob") && IncidentText.names("bob", "bob"))
        #expect(!IncidentText.names("a3f0c2", "a") && !IncidentText.names("bobby-cam", "bob"))
    }

    /// A track's incident is told by its sender where the id is a browser's
    /// UUID (`86e1f891-… (cpustarve-A)` said nothing of whose video), with
    /// the id's first 8 characters to find it; an SDK's `bob-cam` stays.
    @Test func aTrackIncidentIsToldByItsSender() throws {
        let report = MeetingReport(log: Fixtures.sfu, config: TierConfig())
        let i = try #require(report.incidents.first { $0.track != nil })
        #expect(IncidentText.subject(i) == "\(i.track!) (\(i.uid))")
        var renamed = i
        renamed.track = "86e1f891-b729-4cda-809f-1d3199d7278a"
        #expect(IncidentText.subject(renamed) == "\(i.uid)'s video (86e1f891…)")
        let html = report.incidentSubjectHTML(renamed)
        #expect(html.contains("'s video (<a href=\"#") && html.contains(">86e1f891…</a>)"), "\(html)")
    }
}

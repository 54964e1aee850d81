import Foundation
import Testing
@testable import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQATestSupport

@Suite struct MeetingReportTests {
    let report = MeetingReport(log: Fixtures.sfu, config: TierConfig())

    @Test func header() {
        let h = report.header
        #expect(h.meeting == "m-42")
        #expect(h.title == "Weekly sync")
        #expect(h.engine == "sfu")
        #expect(h.start == Fixtures.t0)
        #expect(h.end == Fixtures.t0 + 60000)
        #expect(h.durationMs == 60000)
        #expect(h.participants == 3)
    }

    @Test func latestRenameWinsOverJoinTitle() {
        #expect(MeetingHeader(Fixtures.cdn).title == "Town hall (Q&A)")
    }

    @Test func jsonHasTheSpecKeysInOrder() throws {
        let text = report.json.rendered()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        for key in ["meeting", "title", "engine", "start", "end", "durationMs", "participants", "tracks", "issues"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect(text.hasPrefix("{\"schema\":\"mqa.meeting/1\",\"meeting\":\"m-42\",\"title\":\"Weekly sync\",\"engine\":\"sfu\",\"start\":"))
        let participants = try #require(object["participants"] as? [[String: Any]])
        #expect(participants.map { $0["uid"] as? String } == ["alice", "bob", "carol"])
        for key in ["connections", "reports", "mos", "lossPct", "rttMs", "jitterMs", "bitrateKbps", "tierMs",
                    "tierChanges", "flaps", "sdkTierAgreement", "disconnects"] {
            #expect(participants[0][key] != nil, "participant misses \(key)")
        }
        let tracks = try #require(object["tracks"] as? [[String: Any]])
        for key in ["subscriber", "publisher", "track", "kind", "subscribeTs", "endTs", "firstFrameTs",
                    "timeToFirstFrameMs", "stalls", "stallCount", "stalledMs", "stallRatio"] {
            #expect(tracks[0][key] != nil, "track misses \(key)")
        }
    }

    @Test func findsTheFixtureIssues() {
        let codes = Set(report.analysis.issues.map(\.code))
        for c: IssueCode in [.stallsUnderGoodTier, .neverRendered, .slowFirstFrame, .reconnects, .abnormalDisconnect,
                             .highLatency, .highPacketLoss] {
            #expect(codes.contains(c), "expected \(c.rawValue)")
        }
        #expect(!codes.contains(.noQualityData))
    }

    @Test func markdownShowsTheStallUnderAGoodTier() {
        let md = report.markdown
        #expect(md.contains("| alice      | carol-cam | +0:40.000 |"))
        #expect(md.contains("stalls_under_good_tier"))
        #expect(md.contains("never"))
    }

    @Test func csvRowsAllHaveTheHeaderWidth() {
        let lines = report.csv.split(separator: "\n")
        #expect(lines.count == 1 + 3 + report.analysis.subscriptions.count)
        for line in lines { #expect(csvFields(String(line)).count == MeetingReport.csvColumns.count, "\(line)") }
        #expect(lines[1].hasPrefix("participant,m-42,alice,"))
        #expect(lines[4].hasPrefix("track,m-42,alice,bob,bob-cam,camera,"))
    }

    /// A meeting anyone joined on an engine with a quality feed has one:
    /// a CDN viewer who joined before the SFU panel made it "cdn", and the
    /// panel's reports, tiers and incidents vanished. Only a meeting nobody
    /// joined with a feed is a CDN meeting.
    @Test func aCDNAudienceJoiningFirstDoesNotHideThePanelsReports() {
        let t = Fixtures.t0
        var viewer = ClientBuilder("viewer")
        viewer.join(t, engine: "cdn")
        var host = ClientBuilder("host")
        host.join(t + 100)
        host.reports(from: t + 4000, to: t + 30000, mos: 2.4, rtt: 500, loss: 9)
        let mixed = MeetingLog(meeting: "m-mixed", clients: [host.build(), viewer.build()])
        #expect(mixed.engine == "sfu")
        let report = MeetingReport(log: mixed, config: TierConfig())
        #expect(report.hasQualityData && !report.markdown.contains(MeetingReport.noQualityData))
        #expect(report.analysis.participants.first { $0.uid == "host" }?.warmReports ?? 0 > 10)
        #expect(report.incidents.contains { $0.uid == "host" })
        // The same two on the CDN: no feed at all.
        var cdnHost = ClientBuilder("host")
        cdnHost.join(t + 100, engine: "cdn")
        #expect(MeetingLog(meeting: "m-cdn", clients: [cdnHost.build(), viewer.build()]).engine == "cdn")
    }

    @Test func cdnMeetingHasNoQualityNumbers() throws {
        let cdn = MeetingReport(log: Fixtures.cdn, config: TierConfig())
        #expect(cdn.markdown.contains("no quality data (CDN engine)"))
        #expect(cdn.html.contains("No quality data (CDN engine)"))
        #expect(!cdn.markdown.contains("MOS mean"))
        #expect(!cdn.html.contains("MOS mean"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(cdn.json.rendered().utf8)) as? [String: Any])
        #expect(object["qualityData"] as? Bool == false)
        #expect(object["notice"] as? String == "no quality data (CDN engine)")
        for p in try #require(object["participants"] as? [[String: Any]]) {
            for key in ["mos", "lossPct", "rttMs", "jitterMs", "bitrateKbps", "sdkTierAgreement"] {
                #expect(p[key] is NSNull, "\(key) must be null in a CDN meeting")
            }
        }
        let issues = try #require(object["issues"] as? [[String: Any]])
        #expect(issues.first?["code"] as? String == "no_quality_data")
        // The CSV leaves every quality column empty.
        let alice = cdn.csv.split(separator: "\n")[1]
        let fields = csvFields(String(alice))
        let mosMean = MeetingReport.csvColumns.firstIndex(of: "mosMean")!
        let unknown = MeetingReport.csvColumns.firstIndex(of: "unknownMs")!
        #expect(fields[mosMean...unknown].allSatisfy { $0.isEmpty })
    }

    /// The whole-second form of `offset` (incident windows, chart axes) is
    /// the millisecond form without its fraction: truncated, never rounded,
    /// the sign taken before the truncation.
    @Test(arguments: [
        (67_900, "+1:07.900", "+1:07"), (3_723_999, "+1:02:03.999", "+1:02:03"),
        (0, "+0:00.000", "+0:00"), (-500, "-0:00.500", "-0:00"), (-61_001, "-1:01.001", "-1:01"),
        (59_999, "+0:59.999", "+0:59"), (3_600_000, "+1:00:00.000", "+1:00:00"),
        (36_000_000 * 30, "+300:00:00.000", "+300:00:00"),
    ] as [(Int64, String, String)])
    func offsetsInBothForms(delta: Int64, long: String, short: String) {
        #expect(ReportText.offset(Fixtures.t0 + delta, from: Fixtures.t0) == long)
        #expect(ReportText.offset(Fixtures.t0 + delta, from: Fixtures.t0, milliseconds: false) == short)
    }

    @Test func timestampsAndDurations() {
        #expect(ReportText.timestamp(1_795_946_402_125) == "2026-11-29T10:00:02.125Z")
        #expect(ReportText.timestamp(0) == "1970-01-01T00:00:00.000Z")
        #expect(ReportText.timestamp(951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(ReportText.offset(Fixtures.t0 + 67_900, from: Fixtures.t0) == "+1:07.900")
        #expect(ReportText.offset(Fixtures.t0 + 3_723_000, from: Fixtures.t0) == "+1:02:03.000")
        #expect(ReportText.duration(850) == "850 ms")
        #expect(ReportText.duration(2500) == "2.5 s")
        #expect(ReportText.duration(65000) == "1 m 05 s")
        #expect(ReportText.duration(7_380_000) == "2 h 03 m")
    }
}

/// Splits one CSV line (RFC 4180 quoting) into its fields.
func csvFields(_ line: String) -> [String] {
    var fields: [String] = [], current = "", quoted = false
    var chars = Array(line)[...]
    while let c = chars.popFirst() {
        if quoted {
            if c == "\"" {
                if chars.first == "\"" { current.append("\""); chars.removeFirst() } else { quoted = false }
            } else { current.append(c) }
        } else if c == "\"" { quoted = true }
        else if c == "," { fields.append(current); current = "" }
        else { current.append(c) }
    }
    fields.append(current)
    return fields
}

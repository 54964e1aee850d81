import Foundation
import Testing
@testable import MQASimulator

/// Is the generated fleet plausible? Checked against the ground truth.
@Suite struct StatisticsTests {
    private var all: [FleetMeeting] { Fleet.all }

    private func events(_ f: ParsedClientLog, _ name: String) -> [[String: Any]] { f.events(name) }

    private func state(at t: Int64, _ c: ClientTruth) -> NetworkState? {
        c.network.first { t >= $0.start && t < $0.end }?.state
    }

    @Test func stallsAreSeveralTimesLikelierUnderABadNetwork() {
        var stalls = [Int](repeating: 0, count: 4)
        var exposure = [Int64](repeating: 0, count: 4)
        for m in all {
            for s in m.truth.stalls { stalls[s.subscriberState.rawValue] += 1 }
            for i in 0..<4 { exposure[i] += m.truth.exposureMs[i] }
        }
        let goodRate = Double(stalls[0]) / Double(exposure[0])
        let badRate = Double(stalls[1] + stalls[2] + stalls[3]) / Double(exposure[1] + exposure[2] + exposure[3])
        #expect(stalls[0] > 10 && stalls[1] + stalls[2] + stalls[3] > 10)
        #expect(badRate > 4 * goodRate, "bad \(badRate) good \(goodRate)")
    }

    @Test func someStallsHappenUnderAGoodNetwork() {
        let stalls = all.flatMap(\.truth.stalls)
        let frozenUnderGood = stalls.filter { $0.cause == .senderCameraFroze && $0.subscriberState == .good }
        #expect(frozenUnderGood.count > 5)
        #expect(stalls.contains { $0.cause == .subscriberNetwork })
        #expect(stalls.contains { $0.open })
    }

    /// A sender's freeze is its track's: the other viewers rendering the
    /// track then stall at the same moment (unless in the background or in a
    /// stall of their own), as behind a real SFU.
    @Test func aSenderFreezeStallsEveryViewerRenderingTheTrack() {
        var others = 0, together = 0
        for m in all {
            let stalls = Set(m.truth.stalls.filter { $0.cause == .senderCameraFroze }.map { "\($0.subscriber) \($0.track) \($0.start)" })
            for s in m.truth.stalls where s.cause == .senderCameraFroze {
                for v in m.truth.subscriptions where v.track == s.track && v.subscriber != s.subscriber
                    && (v.firstFrameTs ?? .max) < s.start && v.end > s.start {
                    others += 1
                    if stalls.contains("\(v.subscriber) \(s.track) \(s.start)") { together += 1 }
                }
            }
        }
        #expect(others > 50)
        #expect(Double(together) >= 0.9 * Double(others), "\(together) of \(others)")
    }

    @Test func stallsAreLoggedAsTimedOutPairs() {
        let m = all.first { !$0.truth.stalls.isEmpty }!
        for s in m.truth.stalls.prefix(20) {
            let f = m.logs.first { $0.uid == s.subscriber }!
            let status = events(f, "receive_stream_status").filter { $0["track"] as? String == s.track }
            #expect(status.contains { Fleet.ts($0) == s.start && ($0["timedOut"] as? Bool) == true })
            if !s.open {
                #expect(status.contains { Fleet.ts($0) == s.end && ($0["timedOut"] as? Bool) == false })
            }
        }
    }

    @Test func subscriptionsRenderMostlyButNotAlways() {
        let subs = all.flatMap(\.truth.subscriptions)
        let never = subs.filter { $0.firstFrameTs == nil }.count
        let slow = subs.filter { s in s.firstFrameTs.map { $0 - s.subscribeTs > 3_000 } ?? false }.count
        #expect(subs.count > 200)
        #expect(never > 0 && Double(never) < 0.15 * Double(subs.count))
        #expect(slow > 0)
        #expect(subs.contains { $0.track.hasSuffix("-screen") })
    }

    @Test func cdnMeetingsHaveNoQualityFeed() {
        let cdn = all.filter { $0.engine == .cdn }
        let sfu = all.filter { $0.engine == .sfu }
        #expect(!cdn.isEmpty && sfu.count > cdn.count)
        let feed = ["quality_report", "connection_quality_change", "active_speakers_change"]
        for m in cdn {
            for f in m.logs {
                for o in f.objects {
                    #expect(!feed.contains(o["event"] as? String ?? ""))
                    if o["event"] as? String == "meeting_join" { #expect(o["engine"] as? String == "cdn") }
                }
            }
        }
        for m in sfu {
            #expect(m.logs.contains { !events($0, "connection_quality_change").isEmpty })
            #expect(m.logs.contains { !events($0, "active_speakers_change").isEmpty })
        }
    }

    @Test func meetingsHaveTheirShape() {
        for m in all {
            #expect(m.logs.count >= 2 && m.logs.count <= 12)
            let minutes = Double(m.truth.end - m.truth.start) / 60_000
            #expect(minutes >= 5 && minutes <= 61)
            let joins = m.truth.clients.map { $0.connections[0].start }
            #expect(joins.min()! >= m.truth.start)
        }
        let lateJoiners = all.flatMap { m in m.truth.clients.filter { $0.connections[0].start > m.truth.start + 120_000 } }
        let earlyLeavers = all.flatMap { m in m.truth.clients.filter { $0.connections.last!.end < m.truth.end - 120_000 } }
        #expect(!lateJoiners.isEmpty && !earlyLeavers.isEmpty)
    }

    @Test func firstReportsOfEachConnectionAreCold() {
        var cold = 0, warm = 0
        for m in all where m.engine == .sfu {
            for (f, c) in zip(m.logs, m.truth.clients) {
                let reports = events(f, "quality_report").map { (ts: Fleet.ts($0), o: $0) }
                    .sorted { $0.ts < $1.ts }
                for conn in c.connections {
                    let inConn = reports.filter { $0.ts >= conn.start && $0.ts < conn.end }.map(\.o)
                    guard let first = inConn.first else { continue }
                    #expect((first["rtt"] as? NSNumber)?.doubleValue == 0)
                    let mos = first["mos"]!
                    let placeholder = mos is NSNull || [0, 4.5].contains((mos as? NSNumber)?.doubleValue ?? -1)
                    #expect(placeholder)
                    for r in inConn {
                        let rtt = (r["rtt"] as! NSNumber).doubleValue
                        if rtt == 0 { cold += 1; continue }
                        warm += 1
                        let mos = (r["mos"] as! NSNumber).doubleValue
                        #expect(mos >= 1 && mos <= 5)
                    }
                }
                #expect(c.coldReports <= c.qualityReports)
            }
        }
        #expect(cold > 0 && warm > 20 * cold)
    }

    @Test func qualityFollowsTheNetworkState() {
        var mos = [Double](repeating: 0, count: 4), loss = mos, rtt = mos, n = mos
        for m in all where m.engine == .sfu {
            for (f, c) in zip(m.logs, m.truth.clients) {
                for r in events(f, "quality_report") {
                    guard let v = (r["rtt"] as? NSNumber)?.doubleValue, v > 0,
                          let s = state(at: Fleet.ts(r), c)?.rawValue else { continue }
                    mos[s] += (r["mos"] as! NSNumber).doubleValue
                    loss[s] += (r["loss"] as! NSNumber).doubleValue
                    rtt[s] += v
                    n[s] += 1
                }
            }
        }
        for s in 0..<4 where n[s] > 0 { mos[s] /= n[s]; loss[s] /= n[s]; rtt[s] /= n[s] }
        #expect(n[0] > 10_000 && n[1] > 100 && n[2] > 100 && n[3] > 10)
        #expect(mos[0] > 4.0)
        for s in 1..<4 {
            #expect(mos[s] < mos[0] - 0.2, "state \(s) mos \(mos[s])")
            #expect(loss[s] > 3 * loss[0])
        }
        #expect(rtt[1] > rtt[0] + 100 && rtt[3] > rtt[0] + 150)
    }

    @Test func bitrateRampsUpAfterJoining() {
        var early: [Double] = [], later: [Double] = []
        for m in all where m.engine == .sfu {
            for (f, c) in zip(m.logs, m.truth.clients) {
                let join = c.connections[0].start
                for r in events(f, "quality_report") {
                    let t = Fleet.ts(r)
                    guard (r["rtt"] as! NSNumber).doubleValue > 0, state(at: t, c) == .good else { continue }
                    let b = (r["bitrate"] as! NSNumber).doubleValue
                    if t < join + 8_000 { early.append(b) } else if t > join + 90_000 { later.append(b) }
                }
            }
        }
        let mean = { (xs: [Double]) in xs.reduce(0, +) / Double(xs.count) }
        #expect(!early.isEmpty && !later.isEmpty)
        #expect(mean(later) > 2.5 * mean(early))
    }

    @Test func connectionsDropReconnectAndEndInSeveralWays() {
        var reasons: [String: Int] = [:]
        var reconnects = 0, errors = 0
        for m in all {
            for f in m.logs {
                for o in f.objects {
                    switch o["event"] as? String {
                    case "disconnect":
                        reasons[o["reason"] as! String, default: 0] += 1
                        if o["error"] != nil { errors += 1 }
                    case "reconnect": reconnects += 1
                    default: break
                    }
                }
            }
        }
        #expect(reasons["network", default: 0] > 0 && reasons["meeting_ended", default: 0] > 0)
        #expect(reconnects > 0 && errors == reasons["network", default: 0])
        // A reconnect re-subscribes: some subscriber has two subscriptions to one track.
        let subs = all.flatMap(\.truth.subscriptions).map { "\($0.subscriber)/\($0.track)/" }
        #expect(Set(subs).count < subs.count)
    }

    @Test func backgroundedAppsLeaveReportingGaps() {
        var gaps = 0
        for m in all where m.engine == .sfu {
            for (f, c) in zip(m.logs, m.truth.clients) where !c.backgrounds.isEmpty {
                let ts = events(f, "quality_report").map(Fleet.ts).sorted()
                for (a, b) in zip(ts, ts.dropFirst()) where b - a > 10_000 {
                    if c.connections.contains(where: { a >= $0.start && b < $0.end }) { gaps += 1 }
                }
            }
        }
        #expect(gaps > 0)
    }

    @Test func logsAreMessyLikeRealOnes() {
        var outOfOrder = 0, maxBack: Int64 = 0, duplicates = 0, rfc = 0, unknown = 0, extras = 0
        var byAdmin = 0, titleChanges = 0, shares = 0, capitalized = 0
        let known: Set<String> = [
            "meeting_join", "meeting_leave", "disconnect", "reconnect", "quality_report",
            "connection_quality_change", "active_speakers_change", "stream_subscribe",
            "stream_unsubscribe", "receive_stream_status", "user_enter", "user_leave",
            "member_media_state", "room_title_change", "room_share_start", "room_share_stop",
            "audio_route_change", "audio_interruption", "device_change", "sub_meeting_move", "user_handup",
            "share_broadcast_start", "share_broadcast_stop", "network_change",
        ]
        for m in all {
            for f in m.logs {
                let lines = f.lines
                duplicates += lines.count - Set(lines).count
                var last: Int64 = 0
                for o in f.objects {
                    let ts = Fleet.ts(o)
                    if ts < last { outOfOrder += 1; maxBack = max(maxBack, last - ts) }
                    last = max(last, ts)
                    if o["ts"] is String { rfc += 1 }
                    if !known.contains(o["event"] as! String) { unknown += 1 }
                    if o["seq"] != nil { extras += 1 }
                    if o["byAdmin"] as? Bool == true { byAdmin += 1; #expect(o["opUid"] != nil) }
                    if o["event"] as? String == "room_title_change" { titleChanges += 1 }
                    if o["event"] as? String == "room_share_start" { shares += 1 }
                    if let t = o["tier"] as? String, t.first!.isUppercase { capitalized += 1 }
                }
            }
        }
        #expect(outOfOrder > 0 && maxBack <= 500)
        #expect(duplicates > 0)
        #expect(rfc > 0 && unknown > 0 && extras > 0)
        #expect(byAdmin > 0 && titleChanges > 0 && shares > 0 && capitalized > 0)
    }

    /// The 1.1 context events show up the way they do on real devices: iOS
    /// route changes and interruptions, devices set up before the join,
    /// raised hands, each interruption's end after its start.
    @Test func contextEventsArePlausible() {
        var counts: [String: Int] = [:]
        var devicesBeforeJoin = 0, bluetooth = 0
        for m in all {
            for f in m.logs {
                var joined = false
                var began: Int64? = nil
                for o in f.objects.sorted(by: { Fleet.ts($0) < Fleet.ts($1) }) {
                    let event = o["event"] as! String
                    counts[event, default: 0] += 1
                    switch event {
                    case "meeting_join": joined = true
                    case "device_change" where !joined: devicesBeforeJoin += 1
                    case "audio_route_change" where o["route"] as? String == "bluetooth": bluetooth += 1
                    case "audio_interruption":
                        if o["phase"] as? String == "began" { began = Fleet.ts(o) } else {
                            #expect(began != nil && began! < Fleet.ts(o))
                            began = nil
                        }
                    default: break
                    }
                }
            }
        }
        #expect(devicesBeforeJoin > 0 && bluetooth > 0)
        for event in ["audio_route_change", "audio_interruption", "device_change", "user_handup"] {
            #expect(counts[event, default: 0] > 0, "\(event)")
        }
        #expect(counts["audio_route_change", default: 0] < counts["quality_report", default: 0] / 50)
    }

    @Test func titlesSurviveJSONIntact() {
        var seen = Set<String>()
        for m in all {
            for f in m.logs {
                for o in events(f, "meeting_join") {
                    if let title = o["title"] as? String {
                        seen.insert(title)
                        #expect(TitleCorpus.titles.contains(title))
                    }
                }
                for o in events(f, "room_title_change") {
                    #expect(TitleCorpus.titles.contains(o["title"] as! String))
                    #expect(TitleCorpus.titles.contains(o["previousTitle"] as! String))
                }
            }
            #expect(TitleCorpus.titles.contains(m.truth.title))
        }
        #expect(seen.contains { $0.contains("<") || $0.contains("&") || $0.contains("\"") })
        #expect(seen.contains { $0.unicodeScalars.contains { $0.value > 0x7F } })
    }

    @Test func mobileHeavyFleetSpendsMoreTimeInHandovers() {
        func handoverShare(_ p: SimulationParameters) -> Double {
            let sim = Simulator(seed: 77, meetings: 12, parameters: p)
            var handover: Int64 = 0, total: Int64 = 0
            for i in 0..<12 {
                for c in sim.meeting(i).truth.clients {
                    for s in c.network {
                        total += s.end - s.start
                        if s.state == .mobileHandover { handover += s.end - s.start }
                    }
                }
            }
            return Double(handover) / Double(total)
        }
        #expect(handoverShare(.mobileHeavy) > 2 * handoverShare(.default))
    }

    @Test func activeSpeakersAreSnapshotsOfPresentMembers() {
        // Without log disorder, consecutive snapshots of a connection differ.
        let sim = Simulator(seed: 3, meetings: 6, parameters: .tidy)
        var snapshots = 0
        for i in 0..<6 {
            let m = sim.meeting(i)
            guard m.engine == .sfu else { continue }
            let uids = Set(m.files.map(\.uid))
            for (f, c) in zip(m.files, m.truth.clients) {
                var previous: [String]? = nil
                var connection = -1
                for o in ParsedClientLog(uid: f.uid, contents: f.contents).events("active_speakers_change") {
                    let s = o["speakers"] as! [String]
                    let ts = Fleet.ts(o)
                    #expect(s.count <= 3 && Set(s).count == s.count)
                    #expect(s.allSatisfy(uids.contains))
                    let k = c.connections.firstIndex { ts >= $0.start && ts < $0.end } ?? -1
                    #expect(k >= 0)
                    if k == connection { #expect(previous != s) }
                    previous = s; connection = k
                    snapshots += 1
                }
            }
        }
        #expect(snapshots > 100)
    }
}

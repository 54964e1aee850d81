import MQABase
import MQAModel
import MQAAnalysis
import MQATestSupport

enum Fixtures {
    static let t0: Int64 = 1_795_946_400_000

    /// Two minutes from `t0` watching bob's camera, warm at MOS 4.3 (add
    /// stalls to taste); `bobCamPublisher` is bob.
    static func bobCamViewer(_ uid: String, title: String) -> ClientBuilder {
        let t = t0
        var c = ClientBuilder(uid)
        c.join(t, title: title)
        c.reports(from: t + 2000, to: t + 120_000, mos: 4.3)
        c.subscribe(t + 500, "bob", "bob-cam")
        c.status(t + 1500, "bob", "bob-cam", timedOut: false)
        c.leave(t + 120_000)
        return c
    }

    /// alice and carol watching bob's camera (`bobCamViewer`), and bob:
    /// alice stalls alone at +20 s, +60 s and +100 s (the last longest),
    /// alice and carol together at +80 s, carol alone at +30 s.
    static func bobCamCall(title: String) -> (alice: ClientBuilder, bob: ClientBuilder, carol: ClientBuilder) {
        let t = t0
        var alice = bobCamViewer("alice", title: title), carol = bobCamViewer("carol", title: title)
        alice.stall("bob", "bob-cam", from: t + 20_000, to: t + 21_000)
        alice.stall("bob", "bob-cam", from: t + 60_000, to: t + 62_000)
        alice.stall("bob", "bob-cam", from: t + 100_000, to: t + 105_000)
        alice.stall("bob", "bob-cam", from: t + 80_000, to: t + 83_000)
        carol.stall("bob", "bob-cam", from: t + 80_300, to: t + 83_000)
        carol.stall("bob", "bob-cam", from: t + 30_000, to: t + 31_000)
        return (alice, bobCamPublisher, carol)
    }

    static var bobCamPublisher: ClientBuilder {
        var bob = ClientBuilder("bob")
        bob.join(t0)
        bob.reports(from: t0 + 2000, to: t0 + 120_000, mos: 4.3)
        bob.leave(t0 + 120_000)
        return bob
    }

    /// A one-minute SFU meeting with three participants:
    /// - alice: good network; watches bob-cam and carol-cam, and carol-screen,
    ///   which never renders; her carol-cam stall begins under a good tier.
    /// - bob: a dip to poor quality, then an abnormal disconnect and a
    ///   reconnect; re-subscribes carol-cam after it; a carol-cam stall that
    ///   lines up with alice's (sender-side).
    /// - carol: high RTT; slow first frame of bob-cam and an own stall on it.
    static var sfu: MeetingLog {
        let t = t0
        var alice = ClientBuilder("alice")
        alice.join(t, title: "Weekly sync")
        alice.report(t + 2000, mos: 0, rtt: 0, loss: 0, jitter: 0, bitrate: 0)  // cold placeholder
        alice.reports(from: t + 4000, to: t + 60000, mos: 4.3)
        alice.sdkTier(t + 4500, "Excellent")
        alice.subscribe(t + 1500, "bob", "bob-cam")
        alice.status(t + 2200, "bob", "bob-cam", timedOut: false)
        alice.subscribe(t + 1600, "carol", "carol-cam")
        alice.status(t + 2400, "carol", "carol-cam", timedOut: false)
        alice.stall("carol", "carol-cam", from: t + 40000, to: t + 42500)
        alice.subscribe(t + 5000, "carol", "carol-screen", kind: "screen")
        alice.status(t + 9000, "carol", "carol-screen", timedOut: true)
        alice.leave(t + 60000)

        var bob = ClientBuilder("bob")
        bob.join(t + 500)
        bob.report(t + 2500, mos: 4.5, rtt: 0)  // cold: optimistic placeholder
        bob.reports(from: t + 4500, to: t + 16000, mos: 4.2)
        bob.reports(from: t + 16500, to: t + 28000, mos: 2.9, rtt: 220, loss: 7.5, jitter: 38, bitrate: 640)
        bob.sdkTier(t + 5000, "good")
        bob.sdkTier(t + 17000, "poor")
        bob.subscribe(t + 1000, "alice", "alice-cam")
        bob.status(t + 1800, "alice", "alice-cam", timedOut: false)
        bob.subscribe(t + 1100, "carol", "carol-cam")
        bob.status(t + 1900, "carol", "carol-cam", timedOut: false)
        bob.disconnect(t + 30000, error: "ice_timeout")
        bob.reconnect(t + 33000)
        bob.reports(from: t + 37000, to: t + 59000, mos: 4.1)
        bob.subscribe(t + 33500, "carol", "carol-cam")
        bob.status(t + 34200, "carol", "carol-cam", timedOut: false)
        bob.stall("carol", "carol-cam", from: t + 40800, to: t + 43000)
        bob.leave(t + 59000)

        var carol = ClientBuilder("carol")
        carol.join(t + 1000)
        carol.reports(from: t + 5000, to: t + 58000, mos: 3.7, rtt: 450, jitter: 12)
        carol.subscribe(t + 2000, "bob", "bob-cam")
        carol.status(t + 6500, "bob", "bob-cam", timedOut: false)  // slow first frame
        carol.stall("bob", "bob-cam", from: t + 50000, to: t + 51000)
        carol.subscribe(t + 2100, "alice", "alice-cam")
        carol.status(t + 2900, "alice", "alice-cam", timedOut: false)
        carol.leave(t + 58000)
        return meeting([alice, bob, carol], id: "m-42")
    }

    /// `sfu` with speaker snapshots and the 1.1 context events: a headset
    /// set before alice joins, her route change to Bluetooth 2 s before her
    /// carol-cam stall, bob's audio interruption across his poor stretch,
    /// carol muted by the host (heard by two clients), carol's screen share,
    /// a raised hand, and carol's move to a breakout room.
    static var withContext: MeetingLog {
        let t = t0
        var log = sfu
        var extra: [String: ClientBuilder] = [:]
        for uid in ["alice", "bob", "carol"] { extra[uid] = ClientBuilder(uid) }
        extra["alice"]!.context(t - 20000, .deviceChange, ["kind": "mic", "change": "default", "device": "Jabra Evolve2 65"])
        extra["alice"]!.speakers(t + 3000, ["alice"])
        extra["alice"]!.speakers(t + 20000, ["bob", "alice"])
        extra["alice"]!.speakers(t + 35000, [])
        extra["bob"]!.speakers(t + 3500, ["alice"])  // bob hears less of alice: alice's own total counts
        extra["bob"]!.speakers(t + 10000, [])
        extra["alice"]!.context(t + 38000, .audioRouteChange, ["route": "bluetooth", "reason": "newDeviceAvailable"])
        extra["bob"]!.context(t + 15000, .audioInterruption, ["phase": "began"])
        extra["bob"]!.context(t + 27000, .audioInterruption, ["phase": "ended"])
        extra["bob"]!.context(t + 45000, .userHandup, ["step": "request"])
        extra["bob"]!.context(t + 52000, .userHandup, ["step": "confirmOpen"])
        for (uid, delay) in [("alice", Int64(120)), ("bob", 310)] {
            extra[uid]!.event(t + 21000 + delay, .memberMediaState(target: "carol", media: "mic", on: false, byAdmin: true, opUid: "alice"))
            extra[uid]!.event(t + 5000 + delay, .roomShareStart(publisher: "carol"))
            extra[uid]!.event(t + 25000 + delay, .roomShareStop(publisher: "carol"))
        }
        extra["carol"]!.context(t + 57500, .subMeetingMove, ["target": "m-42/breakout-1", "reason": "breakout"])
        // Format 1.2: bob leaves Wi-Fi for cellular 4 s before his poor stretch.
        extra["bob"]!.context(t + 15000 - 500, .networkChange, ["netType": "cellular", "detail": "wifi→cellular"])
        for i in log.clients.indices {
            let more = extra[log.clients[i].uid]!.build()
            log.clients[i].events = (log.clients[i].events + more.events).enumerated()
                .sorted { ($0.element.ts, $0.offset) < ($1.element.ts, $1.offset) }.map(\.element)
            log.clients[i].context = more.context
        }
        // Format 1.2: alice and bob log their client; carol's app predates it.
        let clients: [String: [String: String]] = [
            "alice": ["platform": "ios", "osVersion": "17.4.1", "sdkVersion": "5.3.0", "appVersion": "2026.11.2",
                      "device": "iPhone15,2", "netType": "wifi"],
            "bob": ["platform": "windows", "osVersion": "10.0.22631", "sdkVersion": "5.2.3", "appVersion": "2026.10.2",
                    "device": "ThinkPad X1 Carbon", "netType": "wifi"],
        ]
        for i in log.clients.indices {
            guard let fields = clients[log.clients[i].uid] else { continue }
            for k in log.clients[i].events.indices where log.clients[i].events[k].payload.kind == .meetingJoin {
                var values: [String: PayloadValue] = fields.mapValues { .string($0) }
                let join = log.clients[i].events[k].payload
                values["engine"] = join["engine"]
                values["title"] = join["title"]
                log.clients[i].events[k].payload = EventPayload(.meetingJoin, values)
            }
        }
        log.meeting = "m-ctx"
        return log
    }

    /// `sfu` on the p2p engine (format 1.2): the same quality feed.
    static var p2p: MeetingLog {
        var log = sfu
        for i in log.clients.indices {
            for k in log.clients[i].events.indices where log.clients[i].events[k].payload.kind == .meetingJoin {
                let join = log.clients[i].events[k].payload
                log.clients[i].events[k].payload = EventPayload(.meetingJoin, ["engine": .string("p2p"), "title": join["title"]])
            }
        }
        log.meeting = "m-p2p"
        return log
    }

    /// A CDN meeting: no quality feed, one renamed title, one stall.
    static var cdn: MeetingLog {
        let t = t0 + 3_600_000
        var dave = ClientBuilder("dave")
        dave.join(t, engine: "cdn", title: "Town hall")
        dave.subscribe(t + 1000, "erin", "erin-cam")
        dave.status(t + 1700, "erin", "erin-cam", timedOut: false)
        dave.stall("erin", "erin-cam", from: t + 20000, to: t + 24000)
        dave.event(t + 30000, .roomTitleChange(title: "Town hall (Q&A)", previousTitle: "Town hall"))
        dave.disconnect(t + 45000, reason: "meeting_ended")
        var erin = ClientBuilder("erin")
        erin.join(t + 200, engine: "cdn", title: "Town hall")
        erin.leave(t + 44000)
        return meeting([dave, erin], id: "m-cdn")
    }

    /// Attacker-shaped ids and titles everywhere text from the logs goes.
    static var hostile: MeetingLog {
        let t = t0
        var a = ClientBuilder("<script>alert(1)</script>")
        a.join(t, title: "\"'& <b>bold</b> =HYPERLINK(\"http://evil\",\"x\")")
        a.reports(from: t + 4000, to: t + 20000, mos: 4.0)
        a.subscribe(t + 1000, "=HYPERLINK(\"http://evil\")", "../../etc/passwd")
        a.status(t + 1500, "=HYPERLINK(\"http://evil\")", "../../etc/passwd", timedOut: false)
        a.stall("=HYPERLINK(\"http://evil\")", "../../etc/passwd", from: t + 8000, to: t + 9000)
        a.disconnect(t + 20000, reason: "+cmd|' /C calc'!A0", error: "@SUM(1+1)\u{1}")
        a.context(t + 7000, .audioRouteChange, ["route": "<iframe onload=alert(1)>", "reason": "=cmd|' /C calc'!A0"])
        a.context(t + 7500, .deviceChange, ["kind": "mic", "change": "added", "device": "</td><script>x</script>"])
        var b = ClientBuilder("-2+3")
        b.join(t + 100)
        b.leave(t + 19000)
        return meeting([a, b], id: "../../etc/passwd</title><script>x</script>")
    }
}

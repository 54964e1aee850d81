import MQABase
import MQAModel
import MQAAnalysis

/// The SDK engine a meeting runs on.
public enum Engine: String, Sendable {
    case sfu
    case cdn
    /// A direct peer connection (format 1.2): a quality feed as on the SFU.
    case p2p

    /// Quality reports, SDK tiers and speakers exist: all but the CDN engine.
    public var hasQualityFeed: Bool { self != .cdn }
}

/// How a participant's presence ends, as planned (a network drop without
/// reconnect can end it earlier).
enum PlannedEnd: Sendable {
    case leave          // meeting_leave
    case meetingEnded   // disconnect, reason meeting_ended
    case kicked         // disconnect, reason kicked
    case appKilled      // the log just stops
}

struct Participant: Sendable {
    let uid: String
    let uidBytes: [UInt8]
    let mobile: Bool
    let joinAt: Int64
    let leaveAt: Int64
    let end: PlannedEnd
    /// Spans with the camera on (sorted, disjoint).
    var cameraOn: [Interval] = []
}

/// A meeting-wide event every connected client hears about.
enum MeetingEventKind: Sendable {
    case media(target: Int, camera: Bool, on: Bool, byAdmin: Bool)
    case titleChange(title: Int, previous: Int)
    case shareStart(publisher: Int)
    case shareStop(publisher: Int)
}

struct MeetingEvent: Sendable {
    let ts: Int64
    let kind: MeetingEventKind
}

/// One active-speakers snapshot: up to three participant indices, loudest first.
struct SpeakerSnapshot: Sendable, Equatable {
    let ts: Int64
    let count: Int
    let s0: Int, s1: Int, s2: Int

    func sameSpeakers(as other: SpeakerSnapshot) -> Bool {
        count == other.count && s0 == other.s0 && s1 == other.s1 && s2 == other.s2
    }

    func speaker(_ i: Int) -> Int { i == 0 ? s0 : i == 1 ? s1 : s2 }
}

/// Everything about a meeting that does not depend on one client's network:
/// who is in it and when, media state changes, titles, shares, speakers.
struct MeetingPlan: Sendable {
    let index: Int
    let id: String
    let idBytes: [UInt8]
    private(set) var engine: Engine
    let start: Int64
    let end: Int64
    let host = 0
    /// `titles[0]` is the initial title; a title change appends one.
    var titles: [String] = []
    var participants: [Participant] = []
    /// Sorted by ts.
    var events: [MeetingEvent] = []
    /// Screen shares: publisher and span.
    var shares: [(publisher: Int, span: Interval)] = []
    /// Sorted by ts (SFU only).
    var speakers: [SpeakerSnapshot] = []

    /// Meeting id: "m-" and 16 hex digits of a bijective mix of seed and
    /// index, so ids never collide within a run.
    static func meetingID(seed: UInt64, index: Int) -> String {
        let v = SplitMix64.mix(seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        return "m-" + hex(v, digits: 16)
    }

    static func hex(_ v: UInt64, digits: Int) -> String {
        let chars = Array("0123456789abcdef")
        var s = ""
        for i in stride(from: digits - 1, through: 0, by: -1) {
            s.append(chars[Int((v >> UInt64(i * 4)) & 0xF)])
        }
        return s
    }

    /// Index into `titles` of the title in force at `t`.
    func titleIndex(at t: Int64) -> Int {
        var current = 0
        for e in events {
            if e.ts > t { break }
            if case .titleChange(let title, _) = e.kind { current = title }
        }
        return current
    }

    init(seed: UInt64, index: Int, parameters p: SimulationParameters) {
        var rng = SplitMix64(seed: seed, stream: UInt64(index) &* 4 &+ 1)
        let mp = p.meetings
        self.index = index
        id = Self.meetingID(seed: seed, index: index)
        idBytes = Array(id.utf8)
        engine = rng.chance(mp.cdnShare) ? .cdn : .sfu
        let day = Int64(rng.below(mp.days))
        let hour = Int64(rng.int(in: mp.startHourUTC))
        start = mp.firstDayEpochMs + day * 86_400_000 + hour * 3_600_000
            + Int64(rng.below(3_600_000))
        end = start + Int64(rng.int(in: mp.durationMinutes)) * 60_000 + Int64(rng.below(60_000))

        titles = [rng.pick(TitleCorpus.titles)]
        planParticipants(p, &rng)
        // A call of two runs peer to peer half the time (format 1.2). The
        // draw is a hash, not the plan's stream, so every other draw of the
        // plan stays what it was.
        if engine == .sfu && participants.count == 2
            && SplitMix64.mix(seed ^ UInt64(index) &* 0xD1B5_4A32_D192_ED03) & 1 == 0 {
            engine = .p2p
        }
        let initialMic = planMedia(p, &rng)
        planTitleChange(p, &rng)
        planShares(p, &rng)
        events.sort { $0.ts < $1.ts }
        if engine.hasQualityFeed { planSpeakers(p, initialMic: initialMic, &rng) }
    }

    private mutating func planParticipants(_ p: SimulationParameters, _ rng: inout SplitMix64) {
        let mp = p.meetings
        let count = rng.int(in: mp.participants)
        let duration = end - start
        let endedByHost = rng.chance(mp.endedByHostShare)
        let kicked = count > 2 && rng.chance(mp.kickShare) ? 1 + rng.below(count - 1) : -1
        var used = Set<String>()
        for i in 0..<count {
            var uid: String
            repeat { uid = "u-" + Self.hex(UInt64(rng.below(65_536)), digits: 4) } while used.contains(uid)
            used.insert(uid)
            let mobile = rng.chance(p.network.mobileShare)
            var join: Int64
            if i == host {
                join = start + rng.ms(in: 0...5_000)
            } else if rng.chance(mp.lateJoinShare) {
                let window = Double(duration) * mp.lateJoinWindow
                join = start + Int64(mp.joinStaggerMs.upperBound) + Int64(rng.unit() * window)
            } else {
                join = start + rng.ms(in: mp.joinStaggerMs)
            }
            join = min(join, end - 60_000)
            var leave: Int64
            var how: PlannedEnd
            if endedByHost {
                leave = end; how = .meetingEnded
            } else {
                leave = i == host ? end : end - rng.ms(in: 0...60_000); how = .leave
            }
            if i != host && rng.chance(mp.earlyLeaveShare) {
                let stay = Double(leave - join) * (0.3 + 0.7 * rng.unit())
                leave = join + max(30_000, Int64(stay)); how = .leave
            }
            if i == kicked {
                leave = join + max(30_000, Int64(Double(leave - join) * rng.double(in: 0.2...0.9)))
                how = .kicked
            }
            if rng.chance(mp.appKilledShare) { how = .appKilled }
            leave = max(leave, join + 30_000)
            participants.append(Participant(uid: uid, uidBytes: Array(uid.utf8), mobile: mobile,
                                            joinAt: join, leaveAt: leave, end: how))
        }
    }

    /// Times of `perHour` random events over `span`: the expected count,
    /// rounded up or down at random, uniformly placed and sorted.
    private static func eventTimes(perHour: Double, in span: Interval,
                                   _ rng: inout SplitMix64) -> [Int64] {
        let expected = perHour * Double(span.end - span.start) / 3_600_000
        let whole = Int(expected)
        let n = whole + (rng.chance(expected - Double(whole)) ? 1 : 0)
        var out: [Int64] = []
        for _ in 0..<n {
            out.append(span.start + Int64(rng.unit() * Double(span.end - span.start)))
        }
        return out.sorted()
    }

    /// Mic/camera toggles and host mutes; fills `events` and each
    /// participant's `cameraOn`. Returns who had the mic on at join.
    private mutating func planMedia(_ p: SimulationParameters, _ rng: inout SplitMix64) -> [Bool] {
        let v = p.video
        // (ts, target, camera?, byAdmin?) before states are assigned
        var raw: [(ts: Int64, target: Int, camera: Bool, byAdmin: Bool)] = []
        var micOn: [Bool] = []
        var camOn: [Bool] = []
        for (i, part) in participants.enumerated() {
            let presence = Interval(start: part.joinAt + 1_000, end: part.leaveAt)
            micOn.append(rng.chance(v.micOnShare))
            camOn.append(rng.chance(v.cameraOnShare))
            for t in Self.eventTimes(perHour: v.micTogglesPerHour, in: presence, &rng) {
                raw.append((t, i, false, false))
            }
            for t in Self.eventTimes(perHour: v.cameraTogglesPerHour, in: presence, &rng) {
                raw.append((t, i, true, false))
            }
        }
        if participants.count > 1 {
            for t in Self.eventTimes(perHour: v.hostMutesPerHour, in: Interval(start: start, end: end), &rng) {
                let target = 1 + rng.below(participants.count - 1)
                let part = participants[target]
                if t > part.joinAt && t < part.leaveAt { raw.append((t, target, false, true)) }
            }
        }
        raw.sort { $0.ts != $1.ts ? $0.ts < $1.ts : $0.target < $1.target }
        let initialMic = micOn
        var cameraSince: [Int64?] = participants.enumerated().map { camOn[$0.offset] ? $0.element.joinAt : nil }
        for r in raw {
            if r.byAdmin {
                guard micOn[r.target] else { continue }
                micOn[r.target] = false
                events.append(MeetingEvent(ts: r.ts, kind: .media(target: r.target, camera: false, on: false, byAdmin: true)))
            } else if r.camera {
                camOn[r.target].toggle()
                if camOn[r.target] {
                    cameraSince[r.target] = r.ts
                } else if let since = cameraSince[r.target] {
                    participants[r.target].cameraOn.append(Interval(start: since, end: r.ts))
                    cameraSince[r.target] = nil
                }
                events.append(MeetingEvent(ts: r.ts, kind: .media(target: r.target, camera: true, on: camOn[r.target], byAdmin: false)))
            } else {
                micOn[r.target].toggle()
                events.append(MeetingEvent(ts: r.ts, kind: .media(target: r.target, camera: false, on: micOn[r.target], byAdmin: false)))
            }
        }
        for i in participants.indices {
            if let since = cameraSince[i], since < participants[i].leaveAt {
                participants[i].cameraOn.append(Interval(start: since, end: participants[i].leaveAt))
            }
        }
        return initialMic
    }

    private mutating func planTitleChange(_ p: SimulationParameters, _ rng: inout SplitMix64) {
        guard end - start > 180_000, rng.chance(p.video.titleChangeShare) else { return }
        var next = rng.pick(TitleCorpus.titles)
        while next == titles[0] { next = rng.pick(TitleCorpus.titles) }
        titles.append(next)
        let t = start + 60_000 + Int64(rng.unit() * Double(end - start - 120_000))
        events.append(MeetingEvent(ts: t, kind: .titleChange(title: 1, previous: 0)))
    }

    private mutating func planShares(_ p: SimulationParameters, _ rng: inout SplitMix64) {
        guard rng.chance(p.video.screenShareShare) else { return }
        var free = start
        for _ in 0..<(1 + rng.below(2)) {
            let who = rng.below(participants.count)
            let part = participants[who]
            let from = max(free, part.joinAt + 5_000)
            guard from < part.leaveAt - 10_000 else { continue }
            let s = from + Int64(rng.unit() * Double(part.leaveAt - 10_000 - from))
            let e = min(s + rng.ms(in: p.video.screenShareMs), part.leaveAt - 1_000)
            guard e > s else { continue }
            shares.append((who, Interval(start: s, end: e)))
            events.append(MeetingEvent(ts: s, kind: .shareStart(publisher: who)))
            events.append(MeetingEvent(ts: e, kind: .shareStop(publisher: who)))
            free = e + 1_000
        }
    }

    /// Snapshots of who speaks: present participants with the mic on.
    private mutating func planSpeakers(_ p: SimulationParameters, initialMic: [Bool],
                                       _ rng: inout SplitMix64) {
        let q = p.quality
        var micOn = initialMic
        var cursor = 0
        var t = start
        var candidates: [Int] = []
        while true {
            t += rng.ms(in: q.speakerChangeMs)
            if t >= end { break }
            while cursor < events.count && events[cursor].ts <= t {
                if case .media(let target, let camera, let on, _) = events[cursor].kind, !camera {
                    micOn[target] = on
                }
                cursor += 1
            }
            candidates.removeAll(keepingCapacity: true)
            for (i, part) in participants.enumerated()
            where micOn[i] && t > part.joinAt && t < part.leaveAt {
                candidates.append(i)
            }
            var n = min(rng.weighted(q.speakerCountWeights), candidates.count)
            var picked = [-1, -1, -1]
            var k = 0
            while n > 0 {
                let c = rng.below(candidates.count)
                picked[k] = candidates.remove(at: c)
                k += 1; n -= 1
            }
            speakers.append(SpeakerSnapshot(ts: t, count: k, s0: picked[0], s1: picked[1], s2: picked[2]))
        }
    }
}

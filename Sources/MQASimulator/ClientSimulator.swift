import MQABase
import MQAModel
import MQAAnalysis

/// Phase two of a client's simulation: every event the client's app logs,
/// given the meeting plan and every client's timeline (phase one), in the
/// order the app's logger writes them (disorder included).
struct ClientSimulator {
    let plan: MeetingPlan
    let timelines: [ClientTimeline]
    let me: Int
    let p: SimulationParameters
    let collect: Bool
    private var rng: SplitMix64
    let style: ClientStyle
    /// Platform, versions, network (format 1.2).
    let profile: ClientProfile
    private(set) var events: [LogEvent] = []

    // Ground truth (filled only when `collect`).
    private(set) var stalls: [StallTruth] = []
    private(set) var subscriptions: [SubscriptionTruth] = []
    private(set) var exposureMs = [Int64](repeating: 0, count: NetworkState.allCases.count)
    private(set) var qualityReports = 0
    private(set) var coldReports = 0

    private let timeline: ClientTimeline
    private let spans: [Interval]
    private let seed: UInt64

    init(plan: MeetingPlan, timelines: [ClientTimeline], me: Int, seed: UInt64,
         parameters: SimulationParameters, collect: Bool, scratch: [LogEvent]) {
        self.plan = plan
        self.timelines = timelines
        self.me = me
        self.p = parameters
        self.collect = collect
        timeline = timelines[me]
        spans = timelines[me].spans
        self.seed = seed
        var rng = SplitMix64(seed: seed, stream: (UInt64(plan.index) << 16 | UInt64(me)) &* 4 &+ 3)
        style = ClientStyle(parameters: parameters, &rng)
        self.rng = rng
        profile = ClientProfile(plan: plan, timeline: timelines[me], me: me, seed: seed)
        events = scratch
        events.removeAll(keepingCapacity: true)
    }

    /// Generates the events, sorted by log position.
    mutating func run() {
        connectionEvents()
        if plan.engine.hasQualityFeed {
            qualityFeed()
            speakerSnapshots()
        }
        memberEvents()
        subscriptionEvents()
        meetingEvents()
        unknownEvents()
        disorder()
        contextEvents()
    }

    /// Adds the context events after the disorder pass, so that the draws
    /// of the other events, and thus their lines, do not depend on them.
    /// They keep their time order (the loggers of these events are sync).
    private mutating func contextEvents() {
        let context = ClientSimulator.contextEvents(plan: plan, timeline: timeline, me: me, seed: seed, profile: profile)
        guard !context.isEmpty else { return }
        for (ts, e) in context { add(ts, .context(e)) }
        events.sort { $0.key != $1.key ? $0.key < $1.key : $0.seq < $1.seq }
    }

    @inline(__always)
    private mutating func add(_ ts: Int64, _ payload: Payload) {
        events.append(LogEvent(key: ts, ts: ts, seq: Int32(events.count), payload: payload))
    }

    /// Adds an event heard `delay` after `t`, if the client is connected
    /// at `t` and still (same connection) at the delivery.
    private mutating func deliver(_ t: Int64, _ payload: Payload) {
        let at = t + rng.ms(in: p.connectivity.deliveryDelayMs)
        guard let c = indexOf(t, in: spans), at < spans[c].end else { return }
        add(at, payload)
    }

    // MARK: - Connections

    private mutating func connectionEvents() {
        for c in timeline.connections {
            if c.isReconnect {
                add(c.span.start, .reconnect)
            } else {
                add(c.span.start, .join(title: style.omitTitle ? nil : plan.titleIndex(at: c.span.start)))
            }
            switch c.end {
            case .leave: add(c.span.end, .leave)
            case .silent: break
            default: add(c.span.end, .disconnect(c.end))
            }
        }
    }

    // MARK: - Quality feed (SFU and P2P)

    private func tierOf(_ s: Double) -> Int {
        let t = p.quality.sdkTierThresholds
        return s >= t[0] ? 0 : s >= t[1] ? 1 : s >= t[2] ? 2 : s >= t[3] ? 3 : 4
    }

    private mutating func qualityFeed() {
        let q = p.quality
        var link = LinkModel(parameters: p, mobile: plan.participants[me].mobile, &rng)
        let interval = Int64(q.reportIntervalMs)
        for c in timeline.connections {
            link.restart(&rng)
            var cold = rng.int(in: q.coldReports)
            var coldIndex = 0
            var smoothed: Double? = nil
            var lastTier = -1
            var slot = c.span.start + rng.ms(in: q.firstReportMs)
            while true {
                let t = slot + rng.ms(in: -q.reportJitterMs...q.reportJitterMs)
                slot += interval
                if t >= c.span.end { break }
                if timeline.inBackground(t) { continue }
                let m = link.measure(in: timeline.state(at: t), cellular: profile.switchedToCellular(at: t),
                                     onCellular: profile.onCellular(at: t), &rng)
                qualityReports += 1
                if cold > 0 {
                    add(t, .coldQuality(bitrate: coldIndex == 0 ? 0 : m.bitrate))
                    cold -= 1; coldIndex += 1; coldReports += 1
                    continue
                }
                add(t, .quality(m))
                let s = smoothed.map { q.sdkTierAlpha * m.mos + (1 - q.sdkTierAlpha) * $0 } ?? m.mos
                smoothed = s
                let tier = tierOf(s)
                if tier != lastTier {
                    lastTier = tier
                    let at = t + rng.ms(in: q.sdkTierDelayMs)
                    if at < c.span.end { add(at, .tier(tier)) }
                }
            }
        }
    }

    private mutating func speakerSnapshots() {
        var last: SpeakerSnapshot? = nil
        var lastConnection = -1
        for (k, s) in plan.speakers.enumerated() {
            guard let c = indexOf(s.ts, in: spans), !timeline.inBackground(s.ts) else { continue }
            if c != lastConnection { last = nil; lastConnection = c }
            if let last, last.sameSpeakers(as: s) { continue }
            last = s
            deliver(s.ts, .speakers(k))
        }
    }

    // MARK: - Members and meeting-wide events

    private mutating func memberEvents() {
        for other in plan.participants.indices where other != me {
            for o in overlaps(spans, timelines[other].spans) {
                let justJoined = o.span.start == spans[o.first].start
                let enter = o.span.start + (justJoined ? rng.ms(in: 30...600)
                                                      : rng.ms(in: p.connectivity.deliveryDelayMs))
                if enter < o.span.end { add(enter, .userEnter(other)) }
                if !o.endsWithFirst {
                    let leave = o.span.end + rng.ms(in: p.connectivity.deliveryDelayMs)
                    if leave < spans[o.first].end { add(leave, .userLeave(other)) }
                }
            }
        }
    }

    private mutating func meetingEvents() {
        for k in plan.events.indices {
            deliver(plan.events[k].ts, .meeting(k))
        }
    }

    private mutating func unknownEvents() {
        let rate = p.disorder.unknownEventsPerMinute
        guard rate > 0 else { return }
        for c in timeline.connections {
            let expected = rate * Double(c.span.end - c.span.start) / 60_000
            let n = Int(expected) + (rng.chance(expected - Double(Int(expected))) ? 1 : 0)
            for _ in 0..<n {
                let t = c.span.start + 1 + Int64(rng.unit() * Double(c.span.end - c.span.start - 1))
                add(t, .unknown(kind: rng.below(4), value: rng.below(1000)))
            }
        }
    }

    // MARK: - Video subscriptions and stalls

    private mutating func subscriptionEvents() {
        for other in plan.participants.indices where other != me {
            let cam = intersect(timelines[other].spans, plan.participants[other].cameraOn)
            subscribe(to: other, screen: false, available: cam)
            let shares = plan.shares.filter { $0.publisher == other }.map(\.span)
            if !shares.isEmpty {
                subscribe(to: other, screen: true, available: intersect(timelines[other].spans, shares))
            }
        }
    }

    private mutating func subscribe(to publisher: Int, screen: Bool, available: [Interval]) {
        let v = p.video
        let freezes = SenderFreezes.windows(
            seed: seed, meeting: plan.index, publisher: publisher, screen: screen, available: available,
            stepMs: Int64(p.quality.reportIntervalMs), chance: v.senderFreezeChance, length: v.senderFreezeMs)
        for o in overlaps(spans, available) {
            let end = o.span.end
            let sub = o.span.start + rng.ms(in: v.subscribeDelayMs)
            guard sub < end else { continue }
            add(sub, .subscribe(publisher: publisher, screen: screen))
            var firstFrame: Int64? = nil
            if rng.chance(v.neverRenderedShare) {
                let t = sub + rng.ms(in: 4_000...6_000)
                if t < end && !timeline.inBackground(t) {
                    add(t, .streamStatus(publisher: publisher, screen: screen, timedOut: true))
                }
            } else {
                var ff = sub + (rng.chance(v.slowFirstFrameShare) ? rng.ms(in: v.slowFirstFrameMs)
                                                                  : rng.ms(in: v.firstFrameMs))
                if timeline.state(at: sub).isBad { ff += rng.ms(in: 0...1_500) }
                if ff < end {
                    firstFrame = ff
                    add(ff, .streamStatus(publisher: publisher, screen: screen, timedOut: false))
                    stalls(publisher: publisher, screen: screen, from: ff, to: end, freezes: freezes)
                }
            }
            if !o.endsWithFirst {
                let at = end + rng.ms(in: p.connectivity.deliveryDelayMs)
                if at < spans[o.first].end { add(at, .unsubscribe(publisher: publisher, screen: screen)) }
            }
            if collect {
                subscriptions.append(SubscriptionTruth(
                    subscriber: plan.participants[me].uid, publisher: plan.participants[publisher].uid,
                    track: trackName(publisher, screen), subscribeTs: sub, end: end,
                    firstFrameTs: firstFrame))
            }
        }
    }

    private func trackName(_ publisher: Int, _ screen: Bool) -> String {
        plan.participants[publisher].uid + (screen ? "-screen" : "-cam")
    }

    /// Steps through a rendered subscription. The sender's freezes
    /// (`SenderFreezes`, shared by every watcher) stall it when they start
    /// in a foreground step; each other foreground step may start a stall of
    /// the subscriber's own: its network (odds by its state) or, on an SDK
    /// with the decoder regression, its decoder.
    private mutating func stalls(publisher: Int, screen: Bool, from: Int64, to end: Int64, freezes: [Interval]) {
        let interval = Int64(p.quality.reportIntervalMs)
        let decoder = profile.decoderStallChance
        var next = 0
        var t = from
        while t < end {
            while next < freezes.count && freezes[next].start < t { next += 1 }
            if timeline.inBackground(t) { t += interval; continue }
            let state = timeline.state(at: t)
            exposureMs[state.rawValue] += min(interval, end - t)
            let t1: Int64, t2: Int64, cause: StallCause
            if next < freezes.count && freezes[next].start < t + interval {
                t1 = freezes[next].start
                if t1 >= end { break }
                t2 = freezes[next].end
                cause = .senderCameraFroze
                next += 1
            } else {
                let model = p.network.states[state.rawValue]
                let u = rng.unit()
                guard u < model.stallChance + decoder else { t += interval; continue }
                cause = u < model.stallChance ? .subscriberNetwork : .subscriberDecoder
                t1 = t + Int64(rng.below(Int(interval)))
                if t1 >= end { break }
                let length = cause == .subscriberNetwork ? model.stallMs : ClientProfileModel.decoderStallMs
                t2 = t1 + rng.ms(in: length)
            }
            add(t1, .streamStatus(publisher: publisher, screen: screen, timedOut: true))
            if t2 < end { add(t2, .streamStatus(publisher: publisher, screen: screen, timedOut: false)) }
            if collect {
                stalls.append(StallTruth(
                    subscriber: plan.participants[me].uid, publisher: plan.participants[publisher].uid,
                    track: trackName(publisher, screen), start: t1, end: min(t2, end),
                    open: t2 >= end, cause: cause, subscriberState: state))
            }
            t = max(t + 1, t2)
        }
    }

    // MARK: - Disorder

    private mutating func disorder() {
        let d = p.disorder
        if d.reorderShare > 0 {
            for i in events.indices where rng.chance(d.reorderShare) {
                events[i].key += rng.ms(in: d.reorderMs)
            }
        }
        if d.duplicateShare > 0 {
            for i in events.indices where rng.chance(d.duplicateShare) {
                var copy = events[i]
                copy.key += rng.ms(in: d.duplicateLagMs)
                copy.seq = Int32(events.count)
                events.append(copy)
            }
        }
        events.sort { $0.key != $1.key ? $0.key < $1.key : $0.seq < $1.seq }
    }
}

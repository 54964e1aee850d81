import MQABase
import MQAModel

/// One video stall of a subscribed track: `[start, end)`.
public struct Stall: Sendable, Equatable {
    public var start: Int64
    public var end: Int64
    /// Still open when the subscription ended (closed there).
    public var open: Bool
    /// The subscriber's recomputed tier at `start` (see `TierTimeline.tier(at:)`);
    /// `unknown` until the meeting analysis fills it in.
    public var tier: Tier

    public init(start: Int64, end: Int64, open: Bool, tier: Tier = .unknown) {
        self.start = start
        self.end = end
        self.open = open
        self.tier = tier
    }

    public var durationMs: Int64 { end - start }
}

/// One track as one subscriber received it (spec "Subscriptions and stalls").
public struct Subscription: Sendable, Equatable {
    public var subscriber: String
    public var publisher: String
    public var track: String
    /// `"camera"`/`"screen"`; `nil` when the subscription was opened by a
    /// `receive_stream_status` (the log began after the subscribe).
    public var kind: String?
    public var subscribeTs: Int64
    public var endTs: Int64
    /// The first `timedOut: false`; `nil` when the track never rendered.
    public var firstFrameTs: Int64?
    public var stalls: [Stall]

    public init(subscriber: String, publisher: String, track: String, kind: String?,
                subscribeTs: Int64, endTs: Int64, firstFrameTs: Int64?, stalls: [Stall]) {
        self.subscriber = subscriber
        self.publisher = publisher
        self.track = track
        self.kind = kind
        self.subscribeTs = subscribeTs
        self.endTs = endTs
        self.firstFrameTs = firstFrameTs
        self.stalls = stalls
    }

    public var timeToFirstFrameMs: Int64? { firstFrameTs.map { $0 - subscribeTs } }
    public var neverRendered: Bool { firstFrameTs == nil }
    public var stallCount: Int { stalls.count }
    public var stalledMs: Int64 { stalls.reduce(0) { $0 + $1.durationMs } }

    /// Stalled ms / rendered ms (end − first frame); 0 when the track never
    /// rendered or rendered for 0 ms.
    public var stallRatio: Double {
        guard let first = firstFrameTs, endTs - first > 0 else { return 0 }
        return Double(stalledMs) / Double(endTs - first)
    }
}

extension ClientLog {
    /// The client's subscriptions as subscriber, in the order they opened.
    /// Stall tiers are left `unknown`; `MeetingAnalysis` fills them in.
    public func subscriptions() -> [Subscription] { subscriptions(until: span?.last) }

    /// The subscriptions, those still open closed at `last` (the client's
    /// last event time, reports included).
    func subscriptions(until last: Int64?) -> [Subscription] {
        struct Key: Hashable { var publisher: String; var track: String }
        struct State { var stalled = false; var stallStart: Int64 = 0 }
        var subs: [Subscription] = []
        var states: [State] = []
        var openByKey: [Key: Int] = [:]

        func openNew(_ key: Key, kind: String?, at ts: Int64) -> Int {
            subs.append(Subscription(
                subscriber: uid, publisher: key.publisher, track: key.track, kind: kind,
                subscribeTs: ts, endTs: ts, firstFrameTs: nil, stalls: []))
            states.append(State())
            openByKey[key] = subs.count - 1
            return subs.count - 1
        }
        func close(_ index: Int, at ts: Int64) {
            if states[index].stalled {  // still stalled at the end: closes here, marked open
                subs[index].stalls.append(Stall(start: states[index].stallStart, end: ts, open: true))
                states[index].stalled = false
            }
            subs[index].endTs = ts
            openByKey[Key(publisher: subs[index].publisher, track: subs[index].track)] = nil
        }
        func closeAll(at ts: Int64, where keep: (Key) -> Bool = { _ in true }) {
            // Ascending index so the outcome never depends on hash order.
            for (key, index) in openByKey.sorted(by: { $0.value < $1.value }) where keep(key) {
                close(index, at: ts)
            }
        }

        for e in events {
            let p = e.payload
            switch p.kind {
            case .streamSubscribe:
                let key = Key(publisher: p.string("publisher")!, track: p.string("track")!)
                if openByKey[key] == nil { _ = openNew(key, kind: p.string("kind")!, at: e.ts) }  // repeats ignored
            case .streamUnsubscribe:
                if let index = openByKey[Key(publisher: p.string("publisher")!, track: p.string("track")!)] { close(index, at: e.ts) }
            case .receiveStreamStatus:
                let key = Key(publisher: p.string("publisher")!, track: p.string("track")!)
                let timedOut = p.bool("timedOut")!
                let index = openByKey[key] ?? openNew(key, kind: nil, at: e.ts)
                if subs[index].firstFrameTs == nil {
                    // `timedOut: true` before the first frame is still loading.
                    if !timedOut { subs[index].firstFrameTs = e.ts }
                } else if timedOut {
                    if !states[index].stalled { states[index].stalled = true; states[index].stallStart = e.ts }
                } else if states[index].stalled {
                    subs[index].stalls.append(Stall(start: states[index].stallStart, end: e.ts, open: false))
                    states[index].stalled = false
                }
            case .disconnect, .meetingLeave:
                closeAll(at: e.ts)
            case .userLeave:
                let target = p.string("target")!
                closeAll(at: e.ts, where: { $0.publisher == target })
            default:
                break
            }
        }
        if let last { closeAll(at: last) }
        return subs
    }
}

import MQABase
import MQAModel

/// Loss a viewer reports when a sender's stream comes back after an outage.
///
/// A receiver counts the packets it missed from the gap in their sequence
/// numbers, so nothing is counted lost while nothing arrives: the whole
/// outage shows up at once, in the first report after the sender's packets
/// return (a recorded mesh call: the sender's uplink cut for 7 s, both
/// viewers' networks untouched, their reports said 0 % all through, then
/// 64 % and 82 % in the second the stream came back). Read as the viewer's
/// own loss, it made each viewer an "own network" incident right next to
/// the sender's.
///
/// So a viewer's loss run is the sender's when
/// - it is short (`maxMs`);
/// - it belongs to a stall every viewer of the track saw together (a
///   shared stall, rule 1): the sender's stream stopped;
/// - it starts after the stall began, at most `keyframeMs` before the
///   stream came back and at most 2 s after: the stall's end, or, when the
///   stall ended with the subscription (the packets stopped: a pause), the
///   next subscription of the same track;
/// - the viewer's reports from the stall's start to it said little loss
///   (`quietBefore`): a viewer whose own network froze the tile reports
///   the loss while frozen.
/// The low-tier run that such a report began goes with it. The moved loss
/// becomes evidence of the track's incident.
///
/// Stalls only rule 7 blames on the publisher (a lone viewer next to the
/// publisher's trouble) move nothing: on a simulated fleet, 188 of 188
/// losses they would have moved were the viewer's own network or device.
struct LateLoss: Sendable {
    /// A loss run this long at most: one or two reports. A viewer whose
    /// own network loses packets for longer keeps its loss.
    static let maxMs: Int64 = 5000
    /// Packets come back before frames do: the first picture waits for a
    /// key frame (2 s in the recorded call). A late loss starts at most
    /// this long before the stall's end.
    static let keyframeMs: Int64 = 3000
    /// The low-tier run a late loss began ends this soon after it (the
    /// tier's dwell before it climbs back).
    static let tierTailMs: Int64 = 10_000

    /// One loss run moved to the sender: whose, its peak, and the stall
    /// (track of `publisher`, starting at `stallStart`) it came back from.
    struct Moved: Sendable, Equatable {
        var uid: String
        var publisher: String
        var track: String
        var stallStart: Int64
        var peak: Double
    }

    /// Every viewer's signals but the late losses (and the low-tier runs
    /// they began), and the moved losses. The finder takes `kept` over
    /// and empties it.
    var kept: [IncidentSignal]
    let moved: [Moved]

    /// `signals`: every participant's signals except stalls;
    /// `subscriptions`: the meeting's, in any order.
    /// `reports`: each participant's warm reports, in time order.
    /// `signals` is consumed: `kept` is that array with the moved ones
    /// taken out in place (a noisy 2,000-viewer hour's 130,000 signals
    /// were held three times here: given, kept, and filtered).
    init(_ signals: consuming [IncidentSignal], subscriptions: [Subscription], sharing: SharedStalls,
         reports: [String: WarmFigures]) {
        // The stall's subscription by position: with the publisher and track
        // spelled out, a 20,000-viewer webinar's windows were 12 MB.
        struct Back { var subscription: Int32, start: Int64, back: Int64 }
        struct TrackKey: Hashable { var subscriber: String, publisher: String, track: String }
        func isShortLoss(_ s: IncidentSignal) -> Bool { s.kind == .loss && s.end - s.start <= Self.maxMs }
        let hasLoss = Set(signals.lazy.filter(isShortLoss).map(\.uid))
        // Each viewer's subscription times per track, made when an open
        // stall first needs them.
        var starts: [TrackKey: [Int64]]?
        func nextStart(_ key: TrackKey, after end: Int64) -> Int64? {
            if starts == nil {
                var made: [TrackKey: [Int64]] = [:]
                for s in subscriptions where hasLoss.contains(s.subscriber) {
                    made[TrackKey(subscriber: s.subscriber, publisher: s.publisher, track: s.track), default: []].append(s.subscribeTs)
                }
                starts = made
            }
            return starts![key]?.filter { $0 >= end && $0 <= end + IncidentFinder.mergeGapMs }.min()
        }
        var windows: [String: [Back]] = [:]
        let gap = IncidentFinder.alignmentMs
        for (k, s) in subscriptions.enumerated() where hasLoss.contains(s.subscriber) && s.publisher != s.subscriber {
            for x in s.stalls {
                guard sharing.isShared(x, of: s) else { continue }
                var back = x.end
                if x.open {
                    // The subscription ended with the stall: the packets
                    // stopped. They came back with the next subscription.
                    if let next = nextStart(TrackKey(subscriber: s.subscriber, publisher: s.publisher, track: s.track), after: s.endTs) {
                        back = next
                    }
                }
                windows[s.subscriber, default: []].append(Back(subscription: Int32(k), start: x.start, back: back))
            }
        }
        var moved: [Moved] = []
        var movedRuns: [String: [(start: Int64, end: Int64)]] = [:]
        var isMoved: [Int] = []
        for (k, s) in signals.enumerated() where isShortLoss(s) {
            if let w = (windows[s.uid] ?? []).filter({ s.start > $0.start && s.start >= $0.back - Self.keyframeMs && s.start <= $0.back + gap })
                   .min(by: { $0.start < $1.start }),
               Self.quietBefore(reports[s.uid] ?? WarmFigures([]), from: w.start, to: s.start)
            {
                let sub = subscriptions[Int(w.subscription)]
                moved.append(Moved(uid: s.uid, publisher: sub.publisher, track: sub.track, stallStart: w.start, peak: s.peak ?? 0))
                movedRuns[s.uid, default: []].append((s.start, s.end))
                isMoved.append(k)
            }
        }
        var kept = consume signals
        if !moved.isEmpty {
            // In place, in order: a moved loss goes, and so does a low-tier
            // run it began.
            var next = isMoved.makeIterator(), nextMoved = next.next()
            var w = 0
            for r in kept.indices {
                if r == nextMoved {
                    nextMoved = next.next()
                    continue
                }
                let s = kept[r]
                let began = s.kind == .lowTier && (movedRuns[s.uid] ?? []).contains {
                    s.start >= $0.start && s.start <= $0.end && s.end <= $0.end + Self.tierTailMs
                }
                guard !began else { continue }
                if w != r { kept.swapAt(w, r) }
                w += 1
            }
            kept.removeLast(kept.count - w)
        }
        self.kept = kept
        self.moved = moved
    }

    /// The viewer's reports from the stall's start until the loss said
    /// little loss (at least one, none above the 5 % line): nothing was
    /// counted while nothing came, the signature of a gap counted late.
    /// A viewer whose own network froze the tile reports the loss during
    /// the stall.
    static func quietBefore(_ reports: WarmFigures, from: Int64, to: Int64) -> Bool {
        var any = false
        for r in reports[reports.partitionPoint { $0.ts >= from }...] {
            guard r.ts < to else { break }
            if r.loss > IssueThresholds.lossP95Pct { return false }
            any = true
        }
        return any
    }

    /// The moved losses of the stalls of `track` (of `publisher`) that
    /// started in `[start, end]`: the largest, and whose.
    func evidence(publisher: String, track: String, start: Int64, end: Int64) -> (peak: Double, viewers: [String])? {
        let mine = moved.filter { $0.publisher == publisher && $0.track == track && $0.stallStart >= start && $0.stallStart <= end }
        guard let peak = mine.map(\.peak).max() else { return nil }
        return (peak, Set(mine.map(\.uid)).sorted())
    }
}

import MQABase
import MQAModel

/// The one sender-side stall rule, used by the track report and the
/// incidents alike (Docs/incidents.md): a stall of one subscriber is
/// *shared* when every other subscriber rendering the same track at its
/// start (at least one; first frame at or before it, subscription open,
/// feed not silent) had a stall that overlaps it widened by `toleranceMs`
/// (±2 s): a gap under 2 s between the two still counts. (Widening both,
/// a 4 s gap, named the wrong side more often: 98.6 % right on 120
/// simulated meetings against 98.2 %.) A frozen camera or the sender's
/// uplink freezes the track for everyone watching; one viewer's network
/// freezes it for that viewer alone, and two viewers' networks failing in
/// the same seconds while a third watched on is not the sender's fault.
///
/// A subscriber whose quality feed fell silent (`FeedSilence`) at that
/// moment counts neither way: an app in the background renders nothing,
/// so its stream status cannot tell that it played on.
public struct SharedStalls: Sendable {
    /// The tolerance both rules use.
    public static let toleranceMs: Int64 = 2000

    private struct Key: Hashable { var publisher: String, track: String }
    private struct Entry { var start: Int64; var end: Int64; var subscriber: String }
    private var byTrack: [Key: (entries: [Entry], longest: Int64)] = [:]
    private var watchers: [Key: [Subscription]] = [:]
    private let silences: [String: [FeedSilence]]
    private let tol: Int64

    /// `silences`: each subscriber's feed silences, by uid (none on a CDN).
    public init(_ subs: [Subscription], silences: [String: [FeedSilence]] = [:], toleranceMs: Int64 = SharedStalls.toleranceMs) {
        tol = toleranceMs
        self.silences = silences
        for s in subs {
            let key = Key(publisher: s.publisher, track: s.track)
            if s.firstFrameTs != nil { watchers[key, default: []].append(s) }
            for x in s.stalls {
                byTrack[key, default: ([], 0)].entries.append(Entry(start: x.start, end: x.end, subscriber: s.subscriber))
                byTrack[key]!.longest = max(byTrack[key]!.longest, x.end - x.start)
            }
        }
        for key in byTrack.keys { byTrack[key]!.entries.sort { $0.start < $1.start } }
    }

    /// The other subscribers of `s`'s track, sorted, with a stall `o` where
    /// `o.start < x.end + tol` and `o.end > x.start - tol`.
    public func others(overlapping x: Stall, of s: Subscription) -> [String] {
        others(overlapping: x.start, x.end, publisher: s.publisher, track: s.track, subscriber: s.subscriber)
    }

    /// The subscribers of `publisher`'s `track` other than `subscriber`,
    /// sorted, with a stall that overlaps `[start, end]` widened by the
    /// tolerance.
    public func others(overlapping start: Int64, _ end: Int64, publisher: String, track: String, subscriber: String) -> [String] {
        guard let (entries, longest) = byTrack[Key(publisher: publisher, track: track)] else { return [] }
        // o.end > start - tol and o.end <= o.start + longest give
        // o.start > start - tol - longest.
        let from = start - tol - longest
        var who = Set<String>()
        for o in entries[entries.partitionPoint { $0.start > from }...] {
            if o.start >= end + tol { break }
            if o.end > start - tol && o.subscriber != subscriber { who.insert(o.subscriber) }
        }
        return who.sorted()
    }

    /// The subscriptions of `publisher`'s `track` that rendered a frame.
    public func watchers(publisher: String, track: String) -> [Subscription] {
        watchers[Key(publisher: publisher, track: track)] ?? []
    }

    /// Whether `uid`'s feed was silent at some time in `[start, end]`.
    public func wasSilent(_ uid: String, _ start: Int64, _ end: Int64) -> Bool {
        silences[uid]?.contains { $0.start < end && $0.end > start } ?? false
    }

    /// Whether another subscriber was rendering the track at the stall's
    /// start (first frame at or before it, subscription open, feed not
    /// silent): whether the stall can be compared at all. A stall nobody
    /// else watched is neither shared nor the viewer's own.
    public func isComparable(_ x: Stall, of s: Subscription) -> Bool {
        (watchers[Key(publisher: s.publisher, track: s.track)] ?? []).contains { w in
            w.subscriber != s.subscriber && w.firstFrameTs.map({ $0 <= x.start }) == true && w.endTs > x.start
                && !wasSilent(w.subscriber, x.start, x.start)
        }
    }

    /// Whether the stall is shared (the sender's side): every other
    /// subscriber watching at its start stalled with it.
    public func isShared(_ x: Stall, of s: Subscription) -> Bool {
        let stalled = Set(others(overlapping: x, of: s))
        guard !stalled.isEmpty else { return false }
        // Every other subscriber rendering the track at the stall's start
        // (first frame at or before it, subscription open, feed not
        // silent) stalled with it, and there is at least one. Stops at the
        // first who played on (a track may have 100,000 subscribers).
        var counted = false
        for w in watchers[Key(publisher: s.publisher, track: s.track)] ?? [] {
            guard w.subscriber != s.subscriber, w.firstFrameTs.map({ $0 <= x.start }) == true, w.endTs > x.start,
                  !wasSilent(w.subscriber, x.start, x.start) else { continue }
            if !stalled.contains(w.subscriber) { return false }
            counted = true
        }
        return counted
    }
}

extension SharedStalls {
    /// The rule over a meeting's subscriptions and its participants' feed silences.
    public init(_ analysis: MeetingAnalysis, toleranceMs: Int64 = SharedStalls.toleranceMs) {
        self.init(analysis.subscriptions, silences: analysis.silences, toleranceMs: toleranceMs)
    }
}

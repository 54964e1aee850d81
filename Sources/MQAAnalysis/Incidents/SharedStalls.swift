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

    struct Key: Hashable { var publisher: String, track: String }
    /// A stall of the track, its subscriber by place in `Track.subscribers`:
    /// a webinar's stall was compared with thousands of others by name,
    /// hashing and sorting strings (8,000 viewers: 62 s for one report).
    ///
    /// `subscription` is the stall's position in the subscriptions given,
    /// whose `subscriber` spells the name (24 bytes a stall, not 40).
    struct Entry { var start: Int64; var end: Int64; var subscriber: Int32; var subscription: Int32 }
    struct Track {
        /// Every subscriber of the track, sorted and each once.
        var subscribers: [String] = []
        var entries: [Entry] = []
        var longest: Int64 = 0
        /// The subscriptions that rendered a frame (positions in the
        /// subscriptions given), and what the rules read of each, by the
        /// same position.
        var watching: [Int32] = []
        var watchers: [Watcher] = []
        /// The feed silences of watchers that had any (`Watcher.silences`).
        var silenceLists: [[FeedSilence]] = []
        /// By position in `entries`: whether that stall is shared
        /// (`isShared`), decided for all of them at once (`sharedFlags`).
        var shared: [Bool] = []
    }
    /// A subscription that rendered a frame, as plain numbers: a
    /// webinar's stall is compared with every watcher of the track, and by
    /// name and with its subscription copied, each comparison cost more
    /// than the rule (a 20,000-viewer webinar's report took 32 s).
    struct Watcher {
        var firstFrameTs: Int64
        var endTs: Int64
        /// The subscriber's place in `Track.subscribers`.
        var subscriber: Int32
        /// Its feed silences in `Track.silenceLists`; -1: none.
        var silences: Int32
    }
    private var tracks: [Key: Track] = [:]
    /// The subscriptions given (the array itself, not a copy).
    private let subscriptions: [Subscription]
    private let silences: [String: [FeedSilence]]
    private let tol: Int64

    /// `silences`: each subscriber's feed silences, by uid (none on a CDN).
    public init(_ subs: [Subscription], silences: [String: [FeedSilence]] = [:], toleranceMs: Int64 = SharedStalls.toleranceMs) {
        tol = toleranceMs
        subscriptions = subs
        self.silences = silences
        var names: [Key: Set<String>] = [:]
        for s in subs { names[Key(publisher: s.publisher, track: s.track), default: []].insert(s.subscriber) }
        var place: [Key: [String: Int32]] = [:]
        for (key, set) in names {
            let sorted = set.sorted()
            tracks[key] = Track(subscribers: sorted)
            place[key] = Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($1, Int32($0)) })
        }
        for (k, s) in subs.enumerated() {
            let key = Key(publisher: s.publisher, track: s.track)
            let i = place[key]![s.subscriber]!
            if let first = s.firstFrameTs {
                var silent: Int32 = -1
                if let list = silences[s.subscriber], !list.isEmpty {
                    silent = Int32(tracks[key]!.silenceLists.count)
                    tracks[key]!.silenceLists.append(list)
                }
                tracks[key]!.watching.append(Int32(k))
                tracks[key]!.watchers.append(Watcher(firstFrameTs: first, endTs: s.endTs, subscriber: i, silences: silent))
            }
            for x in s.stalls {
                tracks[key]!.entries.append(Entry(start: x.start, end: x.end, subscriber: i, subscription: Int32(k)))
                tracks[key]!.longest = max(tracks[key]!.longest, x.end - x.start)
            }
        }
        for key in tracks.keys {
            tracks[key]!.entries.sort { $0.start < $1.start }
            tracks[key]!.shared = SharedStalls.sharedFlags(tracks[key]!, tol: tol)
        }
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
        others(overlapping: start, end, publisher: publisher, track: track, subscriber: subscriber, first: .max).names
    }

    /// The first `limit` names `others(overlapping:of:)` gives, and how
    /// many it gives in all: a track report's Markdown names ten of a
    /// webinar stall's thousands, and naming them all for each stall was
    /// most of a 20,000-viewer track report.
    public func others(overlapping x: Stall, of s: Subscription, first limit: Int) -> (names: [String], count: Int) {
        others(overlapping: x.start, x.end, publisher: s.publisher, track: s.track, subscriber: s.subscriber, first: limit)
    }

    private func others(overlapping start: Int64, _ end: Int64, publisher: String, track: String, subscriber: String,
                        first limit: Int) -> (names: [String], count: Int) {
        guard let t = tracks[Key(publisher: publisher, track: track)] else { return ([], 0) }
        // Per place, its earliest overlapping stall's position in `entries`:
        // each subscriber is named as that stall spells it (uids equal as
        // Unicode text but not in bytes, é and e + U+0301, are one place,
        // and which spelling is shown stays what it was).
        var firstEntry = [Int32](repeating: -1, count: t.subscribers.count)
        var count = 0
        SharedStalls.forEachOverlapping(t, start, end, tol: tol, except: SharedStalls.place(of: subscriber, in: t)) { k, o in
            if firstEntry[Int(o.subscriber)] < 0 {
                firstEntry[Int(o.subscriber)] = Int32(k)
                count += 1
            }
            return true
        }
        var names: [String] = []
        for e in firstEntry where e >= 0 {
            if names.count == limit { break }
            names.append(subscriptions[Int(t.entries[Int(e)].subscription)].subscriber)
        }
        return (names, count)
    }

    /// Whether `others(overlapping:of:)` names anyone, without naming them
    /// (a track report asks it of each of a 2,000-viewer webinar's stalls).
    public func hasOthers(overlapping x: Stall, of s: Subscription) -> Bool {
        guard let t = tracks[Key(publisher: s.publisher, track: s.track)] else { return false }
        var any = false
        SharedStalls.forEachOverlapping(t, x.start, x.end, tol: tol, except: SharedStalls.place(of: s.subscriber, in: t)) { _, _ in
            any = true
            return false
        }
        return any
    }

    /// `subscriber`'s place among the track's, or -1.
    private static func place(of subscriber: String, in t: Track) -> Int32 {
        let i = t.subscribers.partitionPoint { $0 >= subscriber }
        return i < t.subscribers.count && t.subscribers[i] == subscriber ? Int32(i) : -1
    }

    /// Marks, by place, the subscribers other than `except` with a stall
    /// that overlaps `[start, end]` widened by `tol`.
    private static func mark(_ t: Track, _ start: Int64, _ end: Int64, tol: Int64, except: Int32, into marked: inout [Bool]) {
        forEachOverlapping(t, start, end, tol: tol, except: except) { _, o in
            marked[Int(o.subscriber)] = true
            return true
        }
    }

    /// The stalls of subscribers other than `except` that overlap
    /// `[start, end]` widened by `tol`, in start order, until `body`
    /// returns false.
    private static func forEachOverlapping(_ t: Track, _ start: Int64, _ end: Int64, tol: Int64, except: Int32,
                                           _ body: (_ position: Int, _ entry: Entry) -> Bool) {
        // o.end > start - tol and o.end <= o.start + longest give
        // o.start > start - tol - longest.
        let from = start - tol - t.longest
        let first = t.entries.partitionPoint { $0.start > from }
        for k in first..<t.entries.count {
            let o = t.entries[k]
            if o.start >= end + tol { break }
            if o.end > start - tol && o.subscriber != except && !body(k, o) { return }
        }
    }

    /// The subscriptions of `publisher`'s `track` that rendered a frame.
    public func watchers(publisher: String, track: String) -> LazyMapCollection<[Int32], Subscription> {
        (tracks[Key(publisher: publisher, track: track)]?.watching ?? []).lazy.map { [subscriptions] in subscriptions[Int($0)] }
    }

    /// Whether `uid`'s feed was silent at some time in `[start, end]`.
    public func wasSilent(_ uid: String, _ start: Int64, _ end: Int64) -> Bool {
        SharedStalls.wasSilent(silences[uid] ?? [], start, end)
    }

    private static func wasSilent(_ silences: [FeedSilence], _ start: Int64, _ end: Int64) -> Bool {
        silences.contains { $0.start < end && $0.end > start }
    }

    /// Whether a watcher (other than the subscriber at place `me`) was
    /// rendering the track at `t`: first frame at or before it,
    /// subscription open, feed not silent. By place, not by name: a
    /// webinar's stall is compared with every watcher.
    private static func renders(_ w: Watcher, in track: Track, at t: Int64, except me: Int32) -> Bool {
        w.subscriber != me && w.firstFrameTs <= t && w.endTs > t
            && (w.silences < 0 || !wasSilent(track.silenceLists[Int(w.silences)], t, t))
    }

    /// Whether another subscriber was rendering the track at the stall's
    /// start (first frame at or before it, subscription open, feed not
    /// silent): whether the stall can be compared at all. A stall nobody
    /// else watched is neither shared nor the viewer's own.
    public func isComparable(_ x: Stall, of s: Subscription) -> Bool {
        guard let t = tracks[Key(publisher: s.publisher, track: s.track)] else { return false }
        let me = SharedStalls.place(of: s.subscriber, in: t)
        return t.watchers.contains { SharedStalls.renders($0, in: t, at: x.start, except: me) }
    }

    /// Whether the stall is shared (the sender's side): every other
    /// subscriber watching at its start stalled with it. Looked up among
    /// the flags made with the rule (`sharedFlags`); a stall that is not
    /// one of `s`'s is judged on its own (`isSharedByScan`).
    public func isShared(_ x: Stall, of s: Subscription) -> Bool {
        guard let t = tracks[Key(publisher: s.publisher, track: s.track)] else { return false }
        let me = SharedStalls.place(of: s.subscriber, in: t)
        var k = t.entries.partitionPoint { $0.start >= x.start }
        while k < t.entries.count && t.entries[k].start == x.start {
            if t.entries[k].subscriber == me && t.entries[k].end == x.end { return t.shared[k] }
            k += 1
        }
        return isSharedByScan(x, in: t, me: me)
    }

    /// The rule as written, for one stall: mark who stalled with it, then
    /// look at every watcher. `sharedFlags` gives the same for all of a
    /// track's stalls at once.
    func isSharedByScan(_ x: Stall, in t: Track, me: Int32) -> Bool {
        var stalled = [Bool](repeating: false, count: t.subscribers.count)
        SharedStalls.mark(t, x.start, x.end, tol: tol, except: me, into: &stalled)
        guard stalled.contains(true) else { return false }
        // Every other subscriber rendering the track at the stall's start
        // stalled with it, and there is at least one. Stops at the first
        // who played on (a track may have 100,000 subscribers).
        var counted = false
        for w in t.watchers where SharedStalls.renders(w, in: t, at: x.start, except: me) {
            if !stalled[Int(w.subscriber)] { return false }
            counted = true
        }
        return counted
    }

    /// `isSharedByScan` of every stall of `s`'s track that `s` had, in
    /// `s.stalls`' order (for the tests: the flags must agree with it).
    func sharedByScan(_ s: Subscription) -> [Bool] {
        guard let t = tracks[Key(publisher: s.publisher, track: s.track)] else { return s.stalls.map { _ in false } }
        let me = SharedStalls.place(of: s.subscriber, in: t)
        return s.stalls.map { isSharedByScan($0, in: t, me: me) }
    }
}

extension SharedStalls {
    /// The rule over a meeting's subscriptions and its participants' feed silences.
    public init(_ analysis: MeetingAnalysis, toleranceMs: Int64 = SharedStalls.toleranceMs) {
        self.init(analysis.subscriptions, silences: analysis.silences, toleranceMs: toleranceMs)
    }
}

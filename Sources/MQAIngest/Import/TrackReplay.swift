/// A connection's video tracks replayed from its converter's pieces, in
/// time order, to tell which were still subscribed, and showing frames,
/// at a moment: what a reconnect subscribes again (`ParticipantAssembler`).
///
/// Reconnects are visited in time order, so the replay only moves forward:
/// a dump that drops thousands of times costs one pass over its pieces,
/// not one per drop.
struct TrackReplay {
    /// The track pieces taken (not dropped), by time; equal times in the
    /// order they were made.
    private let order: [Int]
    private var cursor = 0
    private var open: [Bool]
    private var showing: [Bool]

    init(_ converter: ConnectionConverter) {
        let pieces = converter.pieces
        order = pieces.indices.filter { pieces[$0].track >= 0 && !pieces[$0].dropped }
            .sorted { (pieces[$0].ts, $0) < (pieces[$1].ts, $1) }
        let count = converter.trackNames.count
        open = [Bool](repeating: false, count: count)
        showing = [Bool](repeating: false, count: count)
    }

    /// The tracks to subscribe again at `ts`, after the person was away:
    /// those open before `ts`, whether subscribed before the drop or while
    /// away (nothing of the tracks is told while the person is away). A
    /// track the samples subscribe or unsubscribe at `ts` itself is theirs
    /// to tell; `showing` is false when the samples give its status at `ts`
    /// themselves, or when it was stalled or not yet rendered (its first
    /// frame then comes when frames resume).
    mutating func resumable(at ts: Int64, _ converter: ConnectionConverter)
        -> [(publisher: String, track: String, showing: Bool)] {
        let pieces = converter.pieces
        while cursor < order.count, pieces[order[cursor]].ts < ts {
            let p = pieces[order[cursor]]
            let k = Int(p.track)
            switch p.event {
            case .streamSubscribe:
                open[k] = true
                showing[k] = false
            case .streamUnsubscribe: open[k] = false
            case .receiveStreamStatus: showing[k] = !p.timedOut
            case .qualityReport: break
            }
            cursor += 1
        }
        var toldNow = Set<Int>()
        var statusNow = Set<Int>()
        var i = cursor
        while i < order.count, pieces[order[i]].ts == ts {
            let p = pieces[order[i]]
            if p.event == .receiveStreamStatus { statusNow.insert(Int(p.track)) } else { toldNow.insert(Int(p.track)) }
            i += 1
        }
        let names = converter.trackNames
        return open.indices.compactMap { k in
            guard open[k], !toldNow.contains(k) else { return nil }
            return (names[k].publisher, names[k].track, showing[k] && !statusNow.contains(k))
        }
    }
}

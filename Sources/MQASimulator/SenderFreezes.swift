import MQABase

/// When a publisher's camera (or screen) froze: a property of the sender's
/// track, so every subscriber rendering the track at that moment stalls
/// together, as they do behind a real SFU, which forwards the same frames
/// to all of them. Each subscriber's simulator derives the same schedule
/// from the meeting, the publisher and the track; it draws from a stream of
/// its own, so no other draw of the simulation moves with it.
enum SenderFreezes {
    /// The freezes of `publisher`'s camera (or screen share) while it was
    /// `available` (connected with the camera on, or sharing): sorted and
    /// disjoint. Each step of `stepMs` freezes with `chance`.
    static func windows(seed: UInt64, meeting: Int, publisher: Int, screen: Bool, available: [Interval],
                        stepMs: Int64, chance: Double, length: ClosedRange<Int>) -> [Interval] {
        guard chance > 0, stepMs > 0 else { return [] }
        let stream = ((UInt64(meeting) << 16 | UInt64(publisher)) &* 4 &+ 3) ^ (1 << 60) ^ (screen ? 1 << 59 : 0)
        var rng = SplitMix64(seed: seed, stream: stream)
        var out: [Interval] = []
        for span in available {
            var t = span.start
            while t < span.end {
                guard rng.chance(chance) else { t += stepMs; continue }
                let start = t + Int64(rng.below(Int(stepMs)))
                guard start < span.end else { break }
                let end = min(span.end, start + rng.ms(in: length))
                out.append(Interval(start: start, end: end))
                t = end + stepMs
            }
        }
        return out
    }
}

import Testing
@testable import MQAAnalysis
import MQABase

/// `SharedStalls` decides every stall of a track in one sweep
/// (`sharedFlags`); each answer must be the rule's as written
/// (`isSharedByScan`), on tracks small enough to hit every edge: stalls
/// that touch, nest, or last 0 ms, several subscriptions of one
/// subscriber, watchers that never rendered, feed silences, a zero
/// tolerance, and uids equal as text but not in bytes.
@Suite struct SharedStallFlagsTests {
    static func randomMeeting(_ g: inout SplitMix64, round: Int) -> (subs: [Subscription], silences: [String: [FeedSilence]]) {
        let names = ["ann", "bob", "cé", "ce\u{301}", "dan", "eve", "fay", "gus"]
        let viewers = Array(names.prefix(g.int(in: 1...names.count)))
        let span = Int64(g.int(in: 1...(round % 3 == 0 ? 20 : 120))) * 1000
        func time() -> Int64 { Int64(g.int(in: 0...Int(span))) }
        var subs: [Subscription] = []
        for track in ["cam", "screen"].prefix(g.int(in: 1...2)) {
            for v in viewers {
                for _ in 0..<g.int(in: 0...2) {
                    let from = time(), to = max(from, time())
                    let first: Int64? = g.int(in: 0...5) == 0 ? nil : from + Int64(g.int(in: 0...3000))
                    var stalls: [Stall] = []
                    for _ in 0..<g.int(in: 0...5) {
                        // Stalls cluster around a few moments, as a sender's do.
                        let at = [span / 4, span / 2, 3 * span / 4][g.int(in: 0...2)] + Int64(g.int(in: -3000...3000))
                        stalls.append(Stall(start: at, end: at + Int64([0, 1, 500, 2000, 6000][g.int(in: 0...4)]), open: false))
                    }
                    subs.append(Subscription(subscriber: v, publisher: "pub", track: track, kind: "camera",
                                             subscribeTs: from, endTs: to, firstFrameTs: first, stalls: stalls))
                }
            }
        }
        var silences: [String: [FeedSilence]] = [:]
        for v in viewers where g.int(in: 0...3) == 0 {
            silences[v] = (0..<g.int(in: 1...3)).map { _ in
                let at = time()
                return FeedSilence(start: at, end: at + Int64([0, 1, 2, 7000][g.int(in: 0...3)]))
            }
        }
        return (subs, silences)
    }

    @Test func theSweepAgreesWithTheRuleOnEveryStall() {
        var g = SplitMix64(seed: 51)
        var shared = 0, notShared = 0
        for round in 0..<3000 {
            let (subs, silences) = Self.randomMeeting(&g, round: round)
            for tol: Int64 in [0, 1, 2000] {
                let sharing = SharedStalls(subs, silences: silences, toleranceMs: tol)
                for s in subs {
                    let expected = sharing.sharedByScan(s)
                    let got = s.stalls.map { sharing.isShared($0, of: s) }
                    #expect(got == expected, "round \(round), tol \(tol), \(s.subscriber) on \(s.track): \(s.stalls)")
                    shared += expected.count { $0 }
                    notShared += expected.count { !$0 }
                }
            }
        }
        // Both answers are common, or the comparison proves little.
        #expect(shared > 1000 && notShared > 1000, "\(shared) shared, \(notShared) not")
    }

    @Test func aStallOfNoSubscriptionIsJudgedByTheRule() {
        var g = SplitMix64(seed: 52)
        for round in 0..<300 {
            let (subs, silences) = Self.randomMeeting(&g, round: round)
            let sharing = SharedStalls(subs, silences: silences)
            for s in subs {
                var moved = s
                moved.stalls = s.stalls.map { Stall(start: $0.start + 1, end: $0.end + 250, open: false) }
                let asked = moved.stalls.map { sharing.isShared($0, of: moved) }
                // The moved stalls are in no track's list: judged one by one.
                #expect(asked == sharing.sharedByScan(moved), "round \(round)")
            }
        }
    }
}

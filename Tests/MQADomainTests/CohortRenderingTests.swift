import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis

/// Video that never renders: a cohort whose subscriptions show no frame
/// has no watched time, so no stall rate and no first frame. Before the
/// never-rendered share, such a build passed the release gate with "no
/// significant difference on 5 metrics".
@Suite struct CohortRenderingTests {
    /// `meetings` meetings of two A and two B subscribers, each with one
    /// video subscription of 10 minutes; B's render only when `bRenders`.
    static func fleet(meetings: Int = 20, bRenders: (Int) -> Bool) -> [CohortMeeting] {
        (0..<meetings).map { m in
            let people = (0..<4).map { i -> CohortParticipant in
                var info = ParticipantContext.ClientInfo()
                info.sdkVersion = i < 2 ? "A" : "B"
                var p = CohortParticipant(uid: "u\(i)", engine: "sfu", client: info, watchedMs: 0, stalledMs: 0,
                                          lowTierMs: 0, measuredMs: 600_000, mosP50: 4.3, abnormalDisconnects: 0, firstFrameMs: [])
                let renders = i < 2 || bRenders(m)
                p.add(subscribeTs: 0, endTs: 600_000, firstFrameTs: renders ? 700 : nil, stalledMs: renders ? 3_000 : 0,
                      kind: "camera")
                return p
            }
            return CohortMeeting(meeting: "m\(m)", start: Int64(m) * 3_600_000, participants: people)
        }
    }

    @Test func videoThatNeverRendersFailsTheGate() throws {
        let c = CohortComparison(Self.fleet { _ in false }, by: .sdkVersion, a: "A", b: "B")
        #expect(c.b.stallRate == nil && c.b.firstFrameP90Ms == nil)
        #expect(c.b.subscriptions == 40 && c.b.neverRendered == 40 && c.b.neverRenderedShare == 1)
        #expect(c.a.neverRenderedShare == 0 && c.a.neverRenderedShareCI == ConfidenceInterval(lower: 0, upper: 0))
        let never = try #require(c.metrics.first { $0.metric == .neverRenderedShare })
        #expect(never.significant && never.worse && c.failsGate)
        #expect(c.verdict.hasPrefix("B's video never rendered in 100 % of subscriptions, where A's always did"), "\(c.verdict)")
        // The table ranks by stall rate; the share shows the broken build.
        let table = CohortTable(Self.fleet { _ in false }, by: .sdkVersion)
        #expect(table.cohorts.first { $0.value == "B" }?.neverRenderedShare == 1)
    }

    @Test func aFewUnrenderedSubscriptionsDoNotGate() {
        let c = CohortComparison(Self.fleet { $0 != 4 }, by: .sdkVersion, a: "A", b: "B")
        #expect(c.b.neverRendered == 2 && c.b.subscriptions == 40)
        #expect(!c.failsGate, "\(c.verdict)")
    }

    /// "No significant difference on N metrics" counts only the metrics
    /// both sides have, and names those one side lacks.
    @Test func theVerdictNamesWhatWasNotCompared() {
        // Both sides alike but B's video never renders in 2 of 20
        // meetings: no significance, and B still has a stall rate.
        let same = CohortComparison(Self.fleet { _ in true }, by: .sdkVersion, a: "A", b: "B")
        #expect(same.verdict.hasPrefix("No significant difference between B and A on 6 metrics"), "\(same.verdict)")
        var c = same
        c.metrics[0].b = nil  // as when B rendered nothing
        c.metrics[0].ratio = nil
        #expect(c.verdict.hasPrefix("No significant difference between B and A on 5 metrics (stall rate not compared: B has none)"),
                "\(c.verdict)")
    }

    @Test func aParticipantCountsItsSubscriptions() {
        var p = CohortParticipant(uid: "u", engine: "sfu", client: .init(), watchedMs: 0, stalledMs: 0, lowTierMs: 0,
                                  measuredMs: 0, mosP50: nil, abnormalDisconnects: 0, firstFrameMs: [])
        p.add(subscribeTs: 0, endTs: 1000, firstFrameTs: nil, stalledMs: 0, kind: "camera")
        p.add(subscribeTs: 0, endTs: 1000, firstFrameTs: 100, stalledMs: 0, kind: "camera")
        #expect(p.subscriptions == 2 && p.neverRendered == 1 && p.watchedMs == 900)
    }

    /// Split by a changed network, each subscription counts under the
    /// value that held at its subscribe; a value under which the
    /// participant only subscribed (and saw nothing) is a piece too.
    @Test func aSplitParticipantCountsEachSubscriptionUnderItsValue() {
        typealias Mark = ClientFieldTimeline.Mark
        let t = ClientFieldTimeline(marks: [Mark(ts: 0, value: "wifi", isJoin: true), Mark(ts: 1000, value: "cellular", isJoin: false)])
        var p = CohortParticipant(uid: "a", engine: "sfu", client: .init(), watchedMs: 0, stalledMs: 0, lowTierMs: 0,
                                  measuredMs: 0, mosP50: nil, abnormalDisconnects: 0, firstFrameMs: [])
        let subs = [
            Subscription(subscriber: "a", publisher: "b", track: "b-cam", kind: "camera", subscribeTs: 100, endTs: 2000,
                         firstFrameTs: 300, stalls: []),
            // Opened on Wi-Fi, never rendered across the change.
            Subscription(subscriber: "a", publisher: "c", track: "c-cam", kind: "camera", subscribeTs: 900, endTs: 2000,
                         firstFrameTs: nil, stalls: []),
            Subscription(subscriber: "a", publisher: "d", track: "d-cam", kind: "camera", subscribeTs: 1500, endTs: 2000,
                         firstFrameTs: nil, stalls: []),
            Subscription(subscriber: "b", publisher: "a", track: "a-cam", kind: "camera", subscribeTs: 1500, endTs: 2000,
                         firstFrameTs: nil, stalls: []),
        ]
        for s in subs where s.subscriber == "a" {
            p.add(subscribeTs: s.subscribeTs, endTs: s.endTs, firstFrameTs: s.firstFrameTs, stalledMs: 0, kind: s.kind)
        }
        p.split(.netType, by: t, holds: [], warmMOS: [], subscriptions: subs, disconnects: [], cdn: false)
        #expect(p.subscriptions == 3 && p.neverRendered == 2)
        #expect(p.pieces.map(\.client.netType) == ["wifi", "cellular"])
        #expect(p.pieces.map(\.subscriptions) == [2, 1] && p.pieces.map(\.neverRendered) == [1, 1])
        // Watched time still splits at the change; the share's counts by subscribe.
        #expect(p.pieces.map(\.watchedMs) == [700, 1000])
        // A value under which the participant only subscribed, and saw
        // nothing, is a piece too: the share counts it there.
        var q = CohortParticipant(uid: "a", engine: "sfu", client: .init(), watchedMs: 0, stalledMs: 0, lowTierMs: 0,
                                  measuredMs: 0, mosP50: nil, abnormalDisconnects: 0, firstFrameMs: [])
        let only = [subs[0], subs[2]].map { s in
            var s = s
            if s.track == "b-cam" { s.endTs = 900 }
            return s
        }
        for s in only { q.add(subscribeTs: s.subscribeTs, endTs: s.endTs, firstFrameTs: s.firstFrameTs, stalledMs: 0, kind: s.kind) }
        q.split(.netType, by: t, holds: [], warmMOS: [], subscriptions: only, disconnects: [], cdn: false)
        #expect(q.pieces.map(\.client.netType) == ["wifi", "cellular"])
        #expect(q.pieces[1].watchedMs == 0 && q.pieces[1].subscriptions == 1 && q.pieces[1].neverRendered == 1)
    }

    /// Ratios near 1 keep the digits that tell them from 1: "1.04×
    /// (1.03–1.05)", not "1× (1–1.1)" for an interval that leaves 1 out.
    @Test func ratiosNearOneAreNotShownAsOne() {
        #expect(CohortComparison.shown(1.039, ConfidenceInterval(lower: 1.026, upper: 1.05)) == ("1.04", "1.03–1.05"))
        #expect(CohortComparison.shown(1.065, ConfidenceInterval(lower: 1.039, upper: 1.094)) == ("1.07", "1.04–1.09"))
        #expect(CohortComparison.shown(1.000067, ConfidenceInterval(lower: 1.00004, upper: 1.00009)) == ("1.00007", "1.00004–1.00009"))
        #expect(CohortComparison.shown(1, ConfidenceInterval(lower: 1, upper: 1)) == ("1", "1–1"))
        #expect(CohortComparison.shown(1.5, ConfidenceInterval(lower: 1.3, upper: 1.8)) == ("1.5", "1.3–1.8"))
    }

    /// A side seen in one meeting has no interval in `compare`, as in
    /// `report cohorts`, and its ratio none either.
    @Test func aOneMeetingSideHasNoInterval() {
        let one = Array(Self.fleet { _ in true }.prefix(1))
        let c = CohortComparison(one, by: .sdkVersion, a: "A", b: "B")
        #expect(c.a.stallRateCI == nil && c.b.stallRateCI == nil && c.b.neverRenderedShareCI == nil)
        #expect(c.metrics.allSatisfy { $0.ratioCI == nil })
        let table = CohortTable(one, by: .sdkVersion)
        #expect(table.cohorts.allSatisfy { $0.stallRateCI == nil })
    }

    /// A regression to none and an improvement to none read as such, not
    /// as "0× as often"; metrics one side lacks are named once per side.
    @Test func verdictsOfNoneReadAsWords() {
        var c = CohortComparison(Self.fleet { _ in true }, by: .sdkVersion, a: "A", b: "B")
        let i = c.metrics.firstIndex { $0.metric == .neverRenderedShare }!
        (c.metrics[i].a, c.metrics[i].b, c.metrics[i].ratio, c.metrics[i].pAdjusted, c.metrics[i].significant) = (0.28, 0, 0, 0.001, true)
        c.metrics[i].ratioCI = ConfidenceInterval(lower: 0, upper: 0)
        #expect(c.verdict.hasPrefix("B's video always rendered, where A's never rendered in 28 % of subscriptions"), "\(c.verdict)")
        var none = CohortComparison(Self.fleet { _ in true }, by: .sdkVersion, a: "A", b: "B")
        for k in none.metrics.indices where [.stallRate, .firstFrameP90Ms, .neverRenderedShare].contains(none.metrics[k].metric) {
            (none.metrics[k].a, none.metrics[k].ratio, none.metrics[k].ratioCI) = (nil, nil, nil)
        }
        none.metrics[1].b = nil
        #expect(none.verdict.hasPrefix("No significant difference between B and A on 2 metrics (stall rate, first frame p90, "
                                       + "never rendered not compared: A has none; time at poor/bad not compared: B has none)"),
                "\(none.verdict)")
    }

    /// A comparison of the alike fleet with `findings` planted: per metric
    /// its adjusted p, ratio and interval, significant.
    static func planted(_ findings: [CohortMetric: (p: Double, ratio: Double, ci: ClosedRange<Double>)]) -> CohortComparison {
        var c = CohortComparison(fleet { _ in true }, by: .sdkVersion, a: "A", b: "B")
        for i in c.metrics.indices {
            guard let f = findings[c.metrics[i].metric] else { continue }
            (c.metrics[i].pAdjusted, c.metrics[i].significant, c.metrics[i].ratio) = (f.p, true, f.ratio)
            c.metrics[i].ratioCI = ConfidenceInterval(lower: f.ci.lowerBound, upper: f.ci.upperBound)
        }
        return c
    }

    /// A failed gate is headlined by the gating metric that failed it, not
    /// by one that improved with a smaller p-value, nor by a metric that
    /// does not gate.
    @Test func aFailedGateIsHeadlinedByWhatFailedIt() {
        let improved = Self.planted([.stallRate: (1e-9, 0.1, 0.05...0.2), .neverRenderedShare: (1e-3, 30, 10...60)])
        #expect(improved.failsGate)
        #expect(improved.verdict.hasPrefix("B's video never renders 30× as often as A's"), "\(improved.verdict)")
        #expect(improved.verdict.hasSuffix("also differs on stall rate"), "\(improved.verdict)")
        let slower = Self.planted([.firstFrameP90Ms: (1e-30, 1.01, 1.005...1.015), .stallRate: (1e-9, 17.5, 9...30)])
        #expect(slower.verdict.hasPrefix("B stalls 18× as much as A"), "\(slower.verdict)")
        #expect(slower.verdict.hasSuffix("also differs on first frame p90"), "\(slower.verdict)")
    }

    /// Partials carry the two counts; partials of an older mqa (without
    /// them) still merge with each other, with the share unknown, but not
    /// with partials that have them.
    @Test func partialsCarryTheCountsAndOlderOnesStayReadable() throws {
        let meetings = Self.fleet(meetings: 6) { $0 % 2 == 0 }
        let partials = try CohortPartials(meetings)
        let text = partials.json.rendered()
        #expect(text.contains(#""subscriptions":2,"neverRendered":0"#) && text.contains(#""subscriptions":2,"neverRendered":2"#))
        let back = try CohortPartials.parse(Data(text.utf8))
        #expect(back.hasRenderCounts)
        #expect(CohortTable(back.meetings, by: .sdkVersion) == CohortTable(meetings, by: .sdkVersion))
        let older = text.replacingOccurrences(of: #","subscriptions":2,"neverRendered":0"#, with: "")
            .replacingOccurrences(of: #","subscriptions":2,"neverRendered":2"#, with: "")
        #expect(!older.contains("subscriptions"))
        let old = try CohortPartials.parse(Data(older.utf8))
        #expect(!old.hasRenderCounts)
        let merged = try CohortPartials.merge([old])
        #expect(!merged.hasRenderCounts && !merged.json.rendered().contains("subscriptions"))
        let table = CohortTable(old.meetings, by: .sdkVersion)
        #expect(table.cohorts.allSatisfy { $0.neverRenderedShare == nil && $0.stallRate != nil })
        let half = try CohortPartials(Array(meetings.prefix(3)))
        let oldRest = try CohortPartials.parse(Data(try CohortPartials(Array(meetings.suffix(3))).json.rendered()
            .replacingOccurrences(of: #","subscriptions":2,"neverRendered":0"#, with: "")
            .replacingOccurrences(of: #","subscriptions":2,"neverRendered":2"#, with: "").utf8))
        #expect(throws: CohortPartialsError.self) { try CohortPartials.merge([half, oldRest]) }
        // All or none in one file.
        let once = text.replacingOccurrences(of: #","subscriptions":2,"neverRendered":2"#, with: "")
        #expect(throws: CohortPartialsError.self) { try CohortPartials.parse(Data(once.utf8)) }
        // More never rendered than subscriptions, or fewer than none, is refused.
        let bad = text.replacingOccurrences(of: #""subscriptions":2,"neverRendered":2"#, with: #""subscriptions":1,"neverRendered":2"#)
        #expect(throws: CohortPartialsError.self) { try CohortPartials.parse(Data(bad.utf8)) }
        let negative = text.replacingOccurrences(of: #""subscriptions":2,"neverRendered":0"#, with: #""subscriptions":-3,"neverRendered":0"#)
        #expect(negative != text)
        #expect(throws: CohortPartialsError.self) { try CohortPartials.parse(Data(negative.utf8)) }
        // Unknown counts are unknown: null, not 0.
        #expect(table.cohorts.allSatisfy { $0.subscriptions == nil && $0.neverRendered == nil })
        // An empty shard's file (no profile) merges with either kind.
        let empty = try CohortPartials.parse(Data(try CohortPartials([CohortMeeting(meeting: "z", start: nil, participants: [])])
            .json.rendered().utf8))
        #expect(!(try CohortPartials.merge([old, empty])).hasRenderCounts)
        #expect(try CohortPartials.merge([empty, back]).hasRenderCounts)
    }
}

/// `compare --margin`: the gate fails only beyond it; a rise from none is
/// beyond any margin.
@Suite struct CohortGateMarginTests {
    @Test func theMarginDecidesTheGate() throws {
        let meetings = CohortStatisticsTests.synthetic(meetings: 60, seed: 1, factor: 2) { _, i, _ in i % 2 == 0 ? "A" : "B" }
        var c = CohortComparison(meetings, by: .sdkVersion, a: "A", b: "B")
        let stall = try #require(c.metrics.first { $0.metric == .stallRate }?.ratio)
        #expect(c.failsGate)
        c.margin = stall - 1 + 0.01
        #expect(!c.failsGate && c.metrics[0].worse)
        #expect(c.verdict.contains("within the \(JSON.number(c.margin * 100)) % margin of the gate: stall rate"), "\(c.verdict)")
        c.margin = stall - 1 - 0.01
        #expect(c.failsGate && !c.verdict.contains("margin"))
        // Video that never rendered, from none: no ratio, beyond any margin.
        var never = CohortComparison(CohortRenderingTests.fleet { _ in false }, by: .sdkVersion, a: "A", b: "B")
        never.margin = 10
        #expect(never.failsGate)
    }
}

import Foundation
import MQASimulator
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest
import MQATestSupport

/// The analysis reads reports block by block (a stored long series is
/// decoded a chunk at a time, once per pass): where the blocks split must
/// never change a figure.
@Suite struct StreamingAnalysisTests {
    /// Everything the analysis gives, as text: connections, participants,
    /// tracks, issues and the meeting's span.
    func fingerprint(_ a: MeetingAnalysis) -> String {
        [a.tiersJSON().rendered(), a.participantsJSON.rendered(), a.tracksJSON.rendered(), a.issuesJSON.rendered(),
         "\(a.span.map { "\($0.first)-\($0.last)" } ?? "none")"].joined(separator: "\n")
    }

    @Test func blocksOfAnySizeGiveTheSameAnalysis() throws {
        var rng = SplitMix64(seed: 23)
        for round in 0..<60 {
            let uids = ["a", "b", "c", "d"].prefix(Int.random(in: 1...4, using: &rng)).map { $0 }
            let log = meeting(uids.map { u in randomClient(u, peers: uids.filter { $0 != u }, rng: &rng) }, id: "m-\(round)")
            var config = TierConfig()
            config.gapMs = [3000, 10000][round % 2]
            config.mos = round % 3 == 0 ? .emodel : .sdk
            let whole = MeetingAnalysis.analyze(log, config: config)
            let inputs = log.clients.map { ClientInput(uid: $0.uid, events: $0.events, reports: randomBlocks($0.reports, rng: &rng)) }
            let streamed = try MeetingAnalysis.analyze(meeting: log.meeting, engine: log.engine, clients: inputs, config: config)
            #expect(fingerprint(streamed) == fingerprint(whole), "round \(round)")
            #expect(whole.participants.contains { $0.warmReports > 0 }, "round \(round) has warm reports")
        }
    }

    /// A walk over a client's reports cut into blocks anywhere meets the
    /// same reports, in the same connections, each with the same report
    /// before it, as the walk over the reports held whole.
    @Test func walksOverBlocksOfAnySizeMeetTheSameReports() throws {
        var rng = SplitMix64(seed: 43)
        var continued = 0
        for round in 0..<200 {
            let client = randomClient("a", peers: ["b"], rng: &rng).build()
            let coldStartMs: Int64 = [4000, 0, 15000][round % 3]
            func walked(_ reports: ConnectedReports) throws -> (warm: [String], runs: [String]) {
                var warm: [String] = [], runs: [String] = []
                try reports.forEachWarmRun(coldStartMs: coldStartMs) { w in
                    w.forEach { i, previous in
                        warm.append("\(w.block.ts[i]) \(w.block.rtt[i]) c\(w.connection) after \(previous.map(String.init) ?? "-")")
                    }
                }
                try reports.forEachConnectedRun { r, run, k in runs += run.map { "\(r.ts[$0]) \(r.loss[$0]) c\(k)" } }
                return (warm, runs)
            }
            let whole = try walked(ConnectedReports(client))
            var bare = client
            bare.reports = ReportColumns()
            let cut = try walked(ConnectedReports(bare, reports: randomBlocks(client.reports, rng: &rng)))
            #expect(cut.warm == whole.warm, "round \(round)")
            #expect(cut.runs == whole.runs, "round \(round)")
            #expect(whole.runs.count == client.connectionSpans().reduce(0) { $0 + $1.reports.count })
            continued += whole.warm.count { !$0.hasSuffix("-") }
        }
        #expect(continued > 1000, "\(continued) warm reports with one before them")
    }

    /// A tuning corpus filled from blocks (`tune` on a client of millions
    /// of reports) holds what it holds filled from the reports whole.
    @Test func aTuningCorpusFilledFromBlocksIsTheWholeOne() throws {
        var rng = SplitMix64(seed: 47)
        var emodel = TierConfig()
        emodel.mos = .emodel
        for round in 0..<40 {
            let uids = ["a", "b", "c"].prefix(Int.random(in: 1...3, using: &rng)).map { $0 }
            let log = meeting(uids.map { u in randomClient(u, peers: uids.filter { $0 != u }, rng: &rng) }, id: "m-\(round)")
            var whole = round % 2 == 0 ? TuningCorpus() : TuningCorpus(mosFor: [TierConfig(), emodel])
            var cut = whole
            for client in log.clients {
                whole.add(client: client, engine: log.engine, windows: nil)
                var bare = client
                bare.reports = ReportColumns()
                try cut.add(client: bare, reports: ConnectedReports(bare, reports: randomBlocks(client.reports, rng: &rng)),
                            engine: log.engine, windows: nil)
            }
            whole.endPart()
            cut.endPart()
            // As text: a null MOS is NaN, which `==` never equals; a
            // Double's description gives its bits back.
            #expect("\(cut)" == "\(whole)", "round \(round)")
            #expect(whole.reportCount > 0 && whole.connectionCount > 0)
        }
    }

    /// The passes after the analysis (incidents, talk time, a client's
    /// last report) walk each client's reports block by block
    /// (`ConnectedReports`): where the blocks split never changes an incident,
    /// the connections or the talk time.
    @Test func incidentsFoundOverBlocksOfAnySizeAreTheWholeLogs() throws {
        var rng = SplitMix64(seed: 41)
        var found = 0
        for round in 0..<60 {
            let uids = ["a", "b", "c", "d"].prefix(Int.random(in: 1...4, using: &rng)).map { $0 }
            let log = meeting(uids.map { u in randomClient(u, peers: uids.filter { $0 != u }, rng: &rng) }, id: "m-\(round)")
            var config = TierConfig()
            config.gapMs = [3000, 10000][round % 2]
            config.coldStartMs = [4000, 0, 15000][round % 3]
            let analysis = MeetingAnalysis.analyze(log, config: config)
            let whole = IncidentFinder.find(log, analysis)
            var collector = IncidentFinder.Collector(log, analysis)
            for client in log.clients {
                var bare = client
                bare.reports = ReportColumns()
                let walked = try ConnectedReports(bare, reports: randomBlocks(client.reports, rng: &rng))
                #expect(walked.spans == client.connectionSpans(), "round \(round) \(client.uid)")
                #expect(walked.lastReportTs == client.reports.ts.last && walked.reportCount == client.reports.count)
                #expect(MeetingContext.talkTime(heardBy: bare, spans: walked.spans) == MeetingContext.talkTime(heardBy: client))
                try collector.add(bare, reports: walked)
            }
            let streamed = collector.incidents()
            #expect(streamed == whole, "round \(round)")
            found += whole.count
        }
        #expect(found > 100, "\(found) incidents in all")
    }

    /// A stored meeting analysed with every series read chunk by chunk (the
    /// path of clients with millions of reports) gives what the whole log
    /// gives, on simulated meetings of every engine.
    @Test func storedSeriesReadChunkByChunkGiveTheSameAnalysis() throws {
        let (scratch, store) = try simulatedMeetings(seed: 5, count: 6)
        defer { withExtendedLifetime(scratch) {} }
        let meetings = try store.meetings()
        #expect(meetings.count == 6)
        for meeting in meetings {
            let log = try #require(try store.meetingLog(meeting))
            let whole = MeetingAnalysis.analyze(log, config: TierConfig())
            let (held, streamed) = try #require(try store.analyzeMeeting(meeting, config: TierConfig(), holdingUpTo: 0))
            #expect(fingerprint(streamed) == fingerprint(whole), "\(meeting)")
            #expect(held.clients.allSatisfy { $0.reports.count == 0 }, "no series held")
            #expect(held.title == log.title && held.engine == log.engine && held.clients.count == log.clients.count)
        }
    }
}

/// A meeting's cohort figures under a config, read client by client from
/// the store (`EventStore.cohortMeeting`, what the cohort commands do with
/// a meeting too big to share a group), are those of its log read whole.
@Suite struct StoredCohortMeetingTests {
    @Test func aMeetingReadClientByClientHasTheWholeLogsFigures() throws {
        let (scratch, store) = try simulatedMeetings(seed: 9, count: 8)
        defer { withExtendedLifetime(scratch) {} }
        var config = TierConfig()
        config.mos = .emodel
        config.gapMs = 5000
        var split = 0
        for meeting in try store.meetings() {
            let whole = try CohortMeeting(log: try #require(try store.meetingLog(meeting)), config: config)
            for limit in [EventStore.heldReportLimit, 0] {
                let read = try #require(try store.cohortMeeting(meeting, config: config, holdingUpTo: limit))
                #expect(read == whole, "\(meeting) holding up to \(limit)")
            }
            split += whole.participants.count { !$0.pieces.isEmpty }
        }
        #expect(split > 0, "some participant's network changed")
        #expect(try store.cohortMeeting("m-none", config: config) == nil)
    }
}

/// Report chunks become doubles through a per-column shortcut; it must give
/// the bits `DecimalNumber.doubleValue` gives, value by value.
@Suite struct ReportColumnsDecodingTests {
    @Test func chunkValuesBecomeTheSameDoublesAsDoubleValue() {
        var r = SplitMix64(seed: 77)
        for round in 0..<200 {
            let n = Int(r.next() % 300)
            var columns: [[DecimalNumber]] = []
            for _ in 0..<5 {
                let shared = -Int16(r.next() % 6)
                columns.append((0..<n).map { _ in
                    switch r.next() % 10 {
                    case 0: return .null
                    case 1: return DecimalNumber(mantissa: 0, exponent: DecimalNumber.binaryExponent).withBits(r.next())
                    case 2: return DecimalNumber(mantissa: Int64(bitPattern: r.next()), exponent: shared)  // past 2^53
                    case 3: return DecimalNumber(mantissa: Int64(r.next() % 2_000_000) - 1_000_000, exponent: -Int16(r.next() % 30))
                    default: return DecimalNumber(mantissa: Int64(r.next() % 200_000) - 100_000, exponent: round % 7 == 0 ? 0 : shared)
                    }
                })
            }
            var decoded = ReportColumns()
            decoded.append(SeriesBlock(ts: (0..<n).map(Int64.init), columns: columns))
            let got = [decoded.loss, decoded.rtt, decoded.jitter, decoded.bitrate, decoded.mos]
            for c in 0..<5 {
                let null = c == 4 ? Double.nan : 0
                for k in 0..<n {
                    let want = columns[c][k].doubleValue ?? null
                    #expect(got[c][k].bitPattern == want.bitPattern, "column \(c) value \(k): \(columns[c][k])")
                }
            }
        }
    }
}

private extension DecimalNumber {
    func withBits(_ bits: UInt64) -> DecimalNumber {
        DecimalNumber(mantissa: Int64(bitPattern: bits), exponent: DecimalNumber.binaryExponent)
    }
}

import Foundation
import Testing
@testable import MQAReports
import MQABase
@testable import MQAModel
@testable import MQAAnalysis

/// The trends chart spaces periods evenly whatever lies between them: its
/// line breaks where periods without meetings were left out, and its axis
/// has as many decimals as its ticks need to differ.
@Suite struct TrendChartTests {
    func meeting(_ id: String, day: Int64, stalledMs: Int64) -> CohortMeeting {
        let people = (0..<2).map { i in
            CohortParticipant(uid: "u\(i)", engine: "sfu", client: ParticipantContext.ClientInfo(), watchedMs: 1_000_000,
                              stalledMs: stalledMs, lowTierMs: 0, measuredMs: 1_000_000, mosP50: 4.3, abnormalDisconnects: 0,
                              firstFrameMs: [500])
        }
        return CohortMeeting(meeting: id, start: Fixtures.t0 + day * 86_400_000, participants: people)
    }

    func path(_ meetings: [CohortMeeting]) -> (path: String, html: String) {
        let html = TrendChart.stallRates(TrendTable(meetings, every: .day, options: BootstrapOptions(replicates: 50)))
        let path = html.range(of: #"<path d="[^"]*""#, options: .regularExpression).map { String(html[$0]) } ?? ""
        return (path, html)
    }

    @Test func theLineBreaksOverDaysLeftOut() {
        // Days 0 and 1 follow each other; day 4 comes after three left out.
        let chart = path([meeting("a", day: 0, stalledMs: 1000), meeting("b", day: 1, stalledMs: 1500), meeting("c", day: 4, stalledMs: 500)])
        #expect(chart.path.filter { $0 == "M" }.count == 2 && chart.path.filter { $0 == "L" }.count == 1, "\(chart.path)")
    }

    @Test func axisTicksDiffer() {
        // 0.2 % at most: ticks 0.05 % apart need two decimals.
        let chart = path([meeting("a", day: 0, stalledMs: 1500), meeting("b", day: 1, stalledMs: 2000)])
        #expect(chart.html.contains(">0.05 %<") && chart.html.contains(">0.10 %<"), "\(chart.html)")
    }

    @Test func axisTicksReadExactly() {
        // 4 % (and its interval) at most: a 5 % scale, ticks at quarters of
        // it; 1.25 % once read "1.2 %" and 3.75 % "3.8 %".
        let chart = path([meeting("a", day: 0, stalledMs: 40_000), meeting("b", day: 1, stalledMs: 38_000)])
        #expect(chart.html.contains(">1.25 %<") && chart.html.contains(">3.75 %<") && chart.html.contains(">2.50 %<"), "\(chart.html)")
        #expect(!chart.html.contains(">1.2 %<"))
    }
}

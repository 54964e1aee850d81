import Testing
@testable import MQAReports
@testable import MQAAnalysis
import MQABase

/// A tier strip over a long call: holds too narrow to see are drawn a pixel
/// at a time in their worst tier; holds wide enough are drawn as before.
@Suite struct TierStripTests {
    func rects(_ svg: String) -> [(x: Double, width: Double, fill: String)] {
        svg.components(separatedBy: "<rect ").dropFirst().map { r in
            func attribute(_ name: String) -> String {
                let start = r.range(of: name + "=\"")!.upperBound
                return String(r[start...].prefix { $0 != "\"" })
            }
            return (Double(attribute("x"))!, Double(attribute("width"))!, attribute("fill"))
        }
    }

    @Test func narrowHoldsAreDrawnAPixelAtATimeInTheirWorstTier() {
        // 1,000 px for 1,000,000 ms: 1 px is 1,000 ms.
        let axis = SVGCharts.TimeAxis(start: 0, end: 1_000_000, x0: 0, x1: 1000)
        var holds: [TierHold] = []
        // 100,000 holds of 10 ms (0.01 px), alternating excellent and good,
        // a poor one every 250th: 100 px of them.
        for k in 0..<10_000 {
            let tier: Tier = k % 250 == 7 ? .poor : k % 2 == 0 ? .excellent : .good
            holds.append(TierHold(tier: tier, from: Int64(k) * 10, to: Int64(k + 1) * 10))
        }
        // Then wide holds, drawn one by one as they were.
        holds.append(TierHold(tier: .fair, from: 100_000, to: 400_000))
        holds.append(TierHold(tier: .good, from: 400_000, to: 400_100))  // 0.1 px, alone
        holds.append(TierHold(tier: .bad, from: 400_100, to: 1_000_000))
        let drawn = rects(SVGCharts.strip(holds, y: 0, name: "tier", axis: axis, tip: "tier"))
        // The grey background, 100 pixel cells, then fair, the lone narrow hold and bad.
        #expect(drawn.count == 1 + 100 + 3)
        let cells = drawn[1...100]
        #expect(cells.allSatisfy { $0.width <= 1.01 && $0.width >= 0.2 })
        let poor = HTMLPage.colour(.poor), good = HTMLPage.colour(.good), excellent = HTMLPage.colour(.excellent)
        // Cell k holds 100 holds: a poor one in cells 0, 2, 5, 7, …, else good, never excellent.
        #expect(cells.filter { $0.fill == poor }.count == 40)
        #expect(cells.allSatisfy { $0.fill == poor || $0.fill == good } && !cells.contains { $0.fill == excellent })
        #expect(drawn[101].fill == HTMLPage.colour(.fair) && drawn[101].x == 100 && drawn[101].width == 300)
        #expect(drawn[102].fill == good && drawn[102].x == 400 && drawn[102].width == 0.2)
        #expect(drawn[103].fill == HTMLPage.colour(.bad))
        #expect(SVGCharts.worse(.unknown, .good) == .good && SVGCharts.worse(.fair, .unknown) == .fair
                && SVGCharts.worse(.poor, .good) == .poor)
    }
}

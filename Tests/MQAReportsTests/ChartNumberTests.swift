import Testing
@testable import MQAReports
import MQABase

/// `SVGCharts.f` writes chart coordinates from their tenths; the text must
/// stay what `JSON.number` writes for the rounded value, or every page
/// (and golden file) would change.
@Suite struct ChartNumberTests {
    private func reference(_ x: Double) -> String { JSON.number((x * 10).rounded() / 10) }

    @Test func edgeCasesReadAsJSONNumberWritesThem() {
        let cases: [Double] = [
            0, -0.0, 0.04, -0.04, 0.05, -0.05, 0.06, -0.06, 0.5, -0.5, 0.95, -0.95, 1, -1, 9.95, 10, 99.99, 100,
            12.34, -12.34, 899.96, 1e14 + 0.3, -1e14 - 0.3, 1e11 + 0.3, -1e11 - 0.7, 99_999_999_999.96, 1e15, -1e15, 1e300, -1e300,
            .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        ]
        for x in cases { #expect(SVGCharts.f(x) == reference(x), "x = \(x)") }
        #expect(SVGCharts.f(-0.04) == "0" && SVGCharts.f(-0.05) == "-0.1" && SVGCharts.f(12.34) == "12.3")
        #expect(SVGCharts.f(.nan) == "null")
    }

    @Test func randomCoordinatesReadAsJSONNumberWritesThem() {
        var g = SplitMix64(seed: 20_261_204)
        for i in 0..<200_000 {
            // Chart-sized values, then every magnitude up to the 1e15 limit.
            let x = i % 2 == 0
                ? g.double(in: -2_000...2_000)
                : g.double(in: -1...1) * Double(sign: .plus, exponent: g.int(in: -20...52), significand: 1)
            #expect(SVGCharts.f(x) == reference(x), "x = \(x)")
        }
    }
}

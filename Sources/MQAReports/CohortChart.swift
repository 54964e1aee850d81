import Foundation
import MQABase
import MQAAnalysis

/// The cohorts page's chart: each value's stall rate as a dot with its
/// 95 % interval as a bar (a forest plot), in the style of `SVGCharts`.
enum CohortChart {
    static let rowHeight = 22.0
    static let labelWidth = 170.0

    /// One row per cohort, in the given order; values with too little data
    /// drawn hollow and grey.
    static func stallRates(_ cohorts: [CohortFigures]) -> String {
        let rows = cohorts.filter { $0.stallRate != nil }
        guard !rows.isEmpty else { return "" }
        let top = 24.0, height = top + Double(rows.count) * rowHeight + 30
        let maxValue = rows.map { max($0.stallRateCI?.upper ?? 0, $0.stallRate ?? 0) }.max() ?? 0
        let scale = niceCeiling(maxValue)
        let x0 = labelWidth, x1 = SVGCharts.width - SVGCharts.right
        func x(_ v: Double) -> Double { x0 + (x1 - x0) * (scale > 0 ? min(v / scale, 1) : 0) }
        let f = SVGCharts.f
        var out = SVGCharts.open(height: height, label: "Stall rate per cohort with 95 % intervals")
        out += "<text x=\"\(f(x0))\" y=\"14\" font-size=\"12\">stall rate (stalled / watched), 95 % interval</text>\n"
        // Grid: five steps.
        for k in 0...5 {
            let v = scale * Double(k) / 5, gx = x(v)
            out += "<line x1=\"\(f(gx))\" y1=\"\(f(top))\" x2=\"\(f(gx))\" y2=\"\(f(height - 24))\" stroke=\"#d0d7de\" stroke-width=\"0.6\"/>"
            out += "<text x=\"\(f(gx))\" y=\"\(f(height - 10))\" font-size=\"11\" text-anchor=\"middle\">\(String(format: "%.1f %%", v * 100))</text>\n"
        }
        for (i, c) in rows.enumerated() {
            let y = top + Double(i) * rowHeight + rowHeight / 2
            let colour = c.insufficient ? "#8c959f" : "#1f2328"
            out += "<text x=\"\(f(x0 - 8))\" y=\"\(f(y + 4))\" font-size=\"12\" text-anchor=\"end\">\(SVGCharts.label(c.value ?? "(unknown)", limit: 22))</text>"
            if let ci = c.stallRateCI {
                out += "<line x1=\"\(f(x(ci.lower)))\" y1=\"\(f(y))\" x2=\"\(f(x(ci.upper)))\" y2=\"\(f(y))\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
            }
            let fill = c.insufficient ? "none" : colour
            out += "<circle cx=\"\(f(x(c.stallRate ?? 0)))\" cy=\"\(f(y))\" r=\"4\" fill=\"\(fill)\" stroke=\"\(colour)\" stroke-width=\"1.4\"/>\n"
        }
        return out + "</svg>\n"
    }

    /// 1, 2 or 5 times a power of ten, at least `v` (and above 0).
    static func niceCeiling(_ v: Double) -> Double {
        guard v > 0 else { return 0.01 }
        var p = 1e-6
        while p * 10 < v { p *= 10 }
        for m in [1.0, 2, 5, 10] where p * m >= v { return p * m }
        return p * 10
    }
}

import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

extension SVGCharts {
    /// What one participant's quality figure shows besides the series.
    struct ParticipantChart {
        var series: QualitySeries
        var timeline: TierTimeline?
        /// The participant's stalls as subscriber, with their track.
        var stalls: [(subscription: Subscription, stall: Stall)]
        /// The participant's incidents with their numbers.
        var incidents: [(number: Int, incident: Incident)]
        var disconnects: [Disconnect]
        /// Context events as dashed lines: time and words.
        var marks: [(ts: Int64, label: String)]
    }

    /// Vertical layout of the quality figure (viewBox units).
    enum QualityLayout {
        static let top = 14.0, mosH = 110.0
        static let stripY = top + mosH + 4, stripH = 7.0, sdkY = stripY + stripH + 2
        static let panelTop = sdkY + stripH + 8, panelH = 34.0, panelStep = 44.0
    }

    /// One participant over the meeting, panels on one time axis: MOS on
    /// the tier bands with stalls shaded red, the recomputed tier and the
    /// SDK's own tier as strips under it, then loss, RTT, jitter and
    /// bitrate on the meeting's shared scales. Incident bands, disconnects
    /// (and the time away) and reconnects run across every panel.
    static func qualityFigure(_ c: ParticipantChart, thresholds: [Double], scales: ChartScales, axis a: TimeAxis) -> String {
        typealias L = QualityLayout
        let axis = a.on(left, width - right)
        let bottom = L.panelTop + L.panelStep * Double(scales.metrics.count - 1) + L.panelH
        let height = bottom + TimeAxis.labelHeight + 2
        var out = open(height: height, label: "Quality over time of \(c.series.uid): MOS, tiers, loss, RTT, jitter and bitrate")
        out += incidentBands(c.incidents, axis: axis, top: L.top, bottom: bottom, origin: a.start)
        out += mosPanel(c, thresholds: thresholds, axis: axis, origin: a.start)
        out += strip(c.timeline?.holds ?? [], y: L.stripY, name: "tier", axis: axis, tip: "recomputed tier")
        out += strip(c.series.sdkTiers, y: L.sdkY, name: "SDK", axis: axis, tip: "the SDK's own tier")
        for (k, m) in scales.metrics.enumerated() {
            let y = L.panelTop + L.panelStep * Double(k)
            out += metricPanel(c.series, m, top: y, axis: axis, labels: k == scales.metrics.count - 1)
        }
        out += connectionMarks(c, axis: axis, top: L.top, bottom: bottom, origin: a.start)
        return out + "</svg>\n"
    }

    /// Translucent bands for the participant's incidents, numbered at the top.
    static func incidentBands(_ incidents: [(number: Int, incident: Incident)], axis: TimeAxis, top: Double, bottom: Double,
                              origin: Int64) -> String {
        // Where the last number shown ends: a number closer than a space
        // after it is left out (its band keeps the tooltip), so that 146
        // and 153 never read as 146153.
        var out = "", lastEnd = -Double.infinity
        // Dated as the page's incident list is (the axis spans the meeting).
        var display = TimeDisplay(zone: axis.zone)
        display.date(forSpan: axis.start, axis.end)
        for (n, i) in incidents {
            let x0 = axis.x(i.startTs), x1 = max(axis.x(i.endTs), x0 + 2)
            let tip = "incident \(n): \(IncidentText.window(i, from: origin, display)), \(IncidentText.kinds(i)) → \(i.cause.words)"
            out += rect(x0, top, x1 - x0, bottom - top, fill: "#7b3294", extra: "fill-opacity=\"0.1\"", tip: tip)
            out += rect(x0, top - 2, x1 - x0, 2, fill: "#7b3294")
            if x0 >= lastEnd + 6 {
                out += text(x0, top - 3, "\(n)")
                lastEnd = x0 + 7.5 * Double(String(n).count)
            }
        }
        return out + "\n"
    }

    /// MOS on the tier bands, stalls shaded, context marks dashed.
    static func mosPanel(_ c: ParticipantChart, thresholds: [Double], axis: TimeAxis, origin: Int64) -> String {
        typealias L = QualityLayout
        func y(_ mos: Double) -> Double { L.top + L.mosH * (5 - min(max(mos, 1), 5)) / 4 }
        var out = ""
        let edges = [5.0] + thresholds + [1.0]
        let tiers: [Tier] = [.excellent, .good, .fair, .poor, .bad]
        for (i, t) in tiers.enumerated() where i + 1 < edges.count {
            let y0 = y(edges[i]), y1 = y(edges[i + 1])
            out += rect(axis.x0, y0, axis.x1 - axis.x0, y1 - y0, fill: HTMLPage.colour(t), extra: "fill-opacity=\"0.28\"")
            out += text(axis.x1 + 6, (y0 + y1) / 2 + 3.5, t.name) + "\n"
        }
        for m in [1.0, 2, 3, 4, 5] { out += text(axis.x0 - 6, y(m) + 3.5, JSON.number(m), anchor: "end") }
        out += text(4, L.top + L.mosH / 2, "MOS") + "\n"
        out += axis.axis(top: L.top, bottom: L.sdkY + L.stripH, labels: false)
        for (s, x) in c.stalls {
            let x0 = axis.x(x.start), x1 = max(axis.x(x.end), x0 + 1)
            let tip = "stall of \(s.track) (from \(s.publisher)) at \(ReportText.offset(x.start, from: origin)) for "
                + "\(ReportText.duration(x.durationMs))\(x.open ? " (open at the end)" : ""), tier \(x.tier.name) at its start"
            out += rect(x0, L.top, x1 - x0, L.mosH, fill: "#d73027", extra: "fill-opacity=\"0.35\"", tip: tip) + "\n"
        }
        for m in c.marks where m.ts >= axis.start && m.ts <= axis.end {
            out += vline(axis.x(m.ts), L.top, L.top + L.mosH, stroke: "#57606a", extra: "stroke-dasharray=\"2 2\" stroke-width=\"1.2\"",
                         tip: m.label) + "\n"
        }
        let pts = bucket(c.series.points, range: axis, value: { $0.mos })
        out += path(pts, axis: axis, y: y)
        if pts.count <= 120 {  // dots only where they can be told apart
            for p in pts { out += "<circle cx=\"\(f(axis.x(p.ts)))\" cy=\"\(f(y(p.v)))\" r=\"1.8\" fill=\"#1f2328\"/>" }
            out += "\n"
        }
        if c.series.points.isEmpty {
            out += text((axis.x0 + axis.x1) / 2, L.top + L.mosH / 2, "no warm quality report", anchor: "middle", small: false) + "\n"
        }
        return out
    }

    /// The narrowest rect a tier strip draws, in pixels.
    static let minimumWidth = 0.2

    /// The worse of two tiers, a known one before unknown.
    static func worse(_ a: Tier, _ b: Tier) -> Tier {
        a == .unknown ? b : b == .unknown ? a : min(a, b)
    }

    /// A tier strip: grey where unknown, each hold in its tier's colour.
    static func strip(_ holds: [TierHold], y: Double, name: String, axis: TimeAxis, tip: String) -> String {
        let h = QualityLayout.stripH
        var out = rect(axis.x0, y, axis.x1 - axis.x0, h, fill: HTMLPage.colour(.unknown), tip: "\(tip): unknown where grey")
        // Holds narrower than the thinnest rect drawn are drawn together, a
        // pixel at a time, in the worst tier among them: one by one, a
        // 92-day client's 600,000 flapping holds made 36 MB of rects no one
        // could tell apart, and 500 MB of memory to write them.
        var narrow: (from: Double, to: Double, tier: Tier)?
        func drawNarrow() {
            guard let n = narrow else { return }
            out += rect(n.from, y, max(n.to - n.from, minimumWidth), h, fill: HTMLPage.colour(n.tier))
            narrow = nil
        }
        for hold in mergedHolds(holds) {
            let x0 = axis.x(hold.from), x1 = axis.x(hold.to)
            if x1 - x0 >= minimumWidth {
                drawNarrow()
                out += rect(x0, y, x1 - x0, h, fill: HTMLPage.colour(hold.tier))
            } else if let n = narrow, x0 - n.from < 1 {
                narrow = (n.from, max(n.to, x1), worse(n.tier, hold.tier))
            } else {
                drawNarrow()
                narrow = (x0, x1, hold.tier)
            }
        }
        drawNarrow()
        return out + text(axis.x1 + 6, y + h, name) + "\n"
    }

    /// One metric on its shared scale, the issue threshold dashed.
    static func metricPanel(_ series: QualitySeries, _ m: ChartScales.Metric, top: Double, axis: TimeAxis, labels: Bool) -> String {
        let h = QualityLayout.panelH
        func y(_ v: Double) -> Double { top + h * (1 - min(max(v, 0), m.top) / m.top) }
        var out = rect(axis.x0, top, axis.x1 - axis.x0, h, fill: "#f6f8fa")
        out += axis.axis(top: top, bottom: top + h, labels: labels)
        out += text(axis.x0 - 6, top + 8, JSON.number(m.top) + (m.clips ? "+" : ""), anchor: "end")
        out += text(axis.x0 - 6, top + h, "0", anchor: "end")
        out += text(4, top + h / 2 + 3, m.name)
        if let t = m.threshold {
            out += "<line x1=\"\(f(axis.x0))\" y1=\"\(f(y(t)))\" x2=\"\(f(axis.x1))\" y2=\"\(f(y(t)))\" stroke=\"#d73027\" stroke-dasharray=\"4 3\" stroke-width=\"1\"/>"
            out += text(axis.x1 + 6, y(t) + 3.5, "\(JSON.number(t)) \(m.unit)")
        }
        out += "\n" + path(bucket(series.points, range: axis, value: m.value), axis: axis, y: y)
        return out
    }

    /// Disconnects (solid purple; the time away shaded grey) and reconnects
    /// (dashed green) across every panel.
    static func connectionMarks(_ c: ParticipantChart, axis: TimeAxis, top: Double, bottom: Double, origin: Int64) -> String {
        var out = ""
        for d in c.disconnects {
            let back = c.series.reconnects.first { $0 >= d.ts }
            if let back, back > d.ts {
                out += rect(axis.x(d.ts), top, axis.x(back) - axis.x(d.ts), bottom - top, fill: "#57606a", extra: "fill-opacity=\"0.18\"",
                            tip: "away for \(ReportText.duration(back - d.ts))")
            }
            let what = "disconnect (\(d.reason)\(d.error.map { ": \($0)" } ?? "")) at \(ReportText.offset(d.ts, from: origin))"
            out += vline(axis.x(d.ts), top, bottom, stroke: "#542788", extra: "stroke-width=\"1.6\"", tip: what)
        }
        for r in c.series.reconnects {
            out += vline(axis.x(r), top, bottom, stroke: "#1a9850", extra: "stroke-width=\"1.6\" stroke-dasharray=\"3 2\"",
                         tip: "reconnect at \(ReportText.offset(r, from: origin))")
        }
        return out.isEmpty ? "" : out + "\n"
    }
}

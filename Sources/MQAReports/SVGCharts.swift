import MQADomain

/// Inline SVG charts for the HTML reports. Every chart is a self-contained
/// `<svg>` element with a `viewBox` (it scales to the page and prints
/// sharply), a `<title>` for screen readers, and only escaped log text.
/// Coordinates are rounded to 0.1 so the markup is stable and small.
enum SVGCharts {
    /// Width of every chart's viewBox; the page scales it.
    static let width = 900.0
    /// Left gutter for axis labels / row labels.
    static let left = 56.0
    static let right = 70.0
    /// More points than this per chart are bucketed (see `bucket`), so a
    /// long meeting's page stays small and a batch stays fast.
    static let maxPoints = 420

    /// Maps meeting time onto the plot's x range.
    struct TimeAxis {
        var start: Int64
        var end: Int64
        var x0: Double
        var x1: Double

        func x(_ t: Int64) -> Double {
            x0 + (x1 - x0) * Double(min(max(t, start), end) - start) / Double(max(end - start, 1))
        }

        /// Tick instants at a round step, at most about 8 of them.
        var ticks: [Int64] {
            let steps: [Int64] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200, 86400]
                .map { $0 * 1000 }
            let span = max(end - start, 1)
            let step = steps.first { span / $0 <= 8 } ?? span
            var out: [Int64] = []
            var t: Int64 = 0
            while t <= span { out.append(start + t); t += step }
            return out
        }

        /// `0:30`, `12:00`, `1:05:00`: offsets from the start, whole seconds.
        static func label(_ ms: Int64) -> String {
            let s = ms / 1000
            func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
            return s >= 3600 ? "\(s / 3600):\(two(s / 60 % 60)):\(two(s % 60))" : "\(s / 60):\(two(s % 60))"
        }

        /// Vertical grid lines and labels under `y`.
        func axis(top: Double, bottom: Double) -> String {
            var out = ""
            for t in ticks {
                let px = f(x(t))
                out += "<line x1=\"\(px)\" y1=\"\(f(top))\" x2=\"\(px)\" y2=\"\(f(bottom))\" stroke=\"#0000001a\"/>"
                out += "<text class=\"small\" x=\"\(px)\" y=\"\(f(bottom + 12))\" text-anchor=\"middle\">\(TimeAxis.label(t - start))</text>"
            }
            return out + "\n"
        }
    }

    /// A number for an SVG attribute.
    static func f(_ x: Double) -> String { JSON.number((x * 10).rounded() / 10) }

    static func open(height: Double, label: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(label.html)\">"
            + "<title>\(label.html)</title>\n"
    }

    /// Cuts `text` to `limit` characters with an ellipsis, then escapes it.
    static func label(_ text: String, limit: Int) -> String {
        (text.count > limit ? String(text.prefix(limit - 1)) + "…" : text).html
    }

    /// Reduces `points` to at most `maxPoints` by time buckets, keeping the
    /// worst value of each bucket (`worse(a, b)` true when a is worse) so
    /// that a short dip is never averaged away. A bucket that contains a
    /// line break keeps it.
    static func bucket(_ points: [QualitySeries.Point], range: TimeAxis,
                       value: (QualitySeries.Point) -> Double, worse: (Double, Double) -> Bool)
        -> [(ts: Int64, v: Double, breaks: Bool)]
    {
        guard points.count > maxPoints else { return points.map { (ts: $0.ts, v: value($0), breaks: $0.breaksLine) } }
        let span = max(range.end - range.start, 1)
        var out: [(ts: Int64, v: Double, breaks: Bool)] = []
        var current = -1
        // Straight from the points: a copy of a series of millions first
        // would cost more memory than the whole chart.
        for point in points {
            let p = (ts: point.ts, v: value(point), breaks: point.breaksLine)
            let b = Int(Double(p.ts - range.start) / Double(span) * Double(maxPoints))
            if b != current || out.isEmpty {
                out.append(p)
                current = b
            } else if p.breaks {
                out.append(p)  // never bridge a gap inside a bucket
            } else if worse(p.v, out[out.count - 1].v) {
                out[out.count - 1].v = p.v
            }
        }
        return out
    }

    /// A polyline path broken at every `breaks` point.
    static func path(_ pts: [(ts: Int64, v: Double, breaks: Bool)], axis: TimeAxis, y: (Double) -> Double) -> String {
        var d = ""
        for (i, p) in pts.enumerated() {
            d += (i == 0 || p.breaks ? "M" : "L") + f(axis.x(p.ts)) + " " + f(y(p.v)) + " "
        }
        return d.isEmpty ? "" : "<path d=\"\(d.dropLast())\" fill=\"none\" stroke=\"#1f2328\" stroke-width=\"1.4\" stroke-linejoin=\"round\"/>\n"
    }

    // MARK: MOS on tier bands

    /// MOS over time of one participant on horizontal bands coloured by the
    /// config's tier thresholds, with the recomputed tier as a strip under
    /// the plot and the participant's stalls (as subscriber) shaded red.
    static func mosChart(_ series: QualitySeries, timeline: TierTimeline?, stalls: [Stall],
                         thresholds: [Double], axis a: TimeAxis, marks: [(ts: Int64, label: String)] = []) -> String {
        let top = 8.0, plotH = 130.0, stripY = top + plotH + 4, stripH = 8.0, height = stripY + stripH + 20
        let axis = TimeAxis(start: a.start, end: a.end, x0: left, x1: width - right)
        func y(_ mos: Double) -> Double { top + plotH * (5 - min(max(mos, 1), 5)) / 4 }
        var out = open(height: height, label: "MOS over time of \(series.uid), on the tier bands")
        // Bands: [t0, 5] excellent … [1, t3] bad.
        let edges = [5.0] + thresholds + [1.0]
        let tiers: [Tier] = [.excellent, .good, .fair, .poor, .bad]
        for (i, t) in tiers.enumerated() where i + 1 < edges.count {
            let y0 = y(edges[i]), y1 = y(edges[i + 1])
            out += "<rect x=\"\(f(axis.x0))\" y=\"\(f(y0))\" width=\"\(f(axis.x1 - axis.x0))\" height=\"\(f(y1 - y0))\" fill=\"\(HTMLPage.colour(t))\" fill-opacity=\"0.28\"/>"
            out += "<text class=\"small\" x=\"\(f(axis.x1 + 6))\" y=\"\(f((y0 + y1) / 2 + 3.5))\">\(t.name)</text>\n"
        }
        for m in [1.0, 2, 3, 4, 5] {
            out += "<text class=\"small\" x=\"\(f(axis.x0 - 6))\" y=\"\(f(y(m) + 3.5))\" text-anchor=\"end\">\(JSON.number(m))</text>"
        }
        out += "<text class=\"small\" x=\"4\" y=\"\(f(top + plotH / 2))\">MOS</text>\n"
        out += axis.axis(top: top, bottom: stripY + stripH)
        for s in stalls {
            let x0 = axis.x(s.start), x1 = max(axis.x(s.end), x0 + 1)
            out += "<rect x=\"\(f(x0))\" y=\"\(f(top))\" width=\"\(f(x1 - x0))\" height=\"\(f(plotH))\" fill=\"#d73027\" fill-opacity=\"0.35\"><title>stall \(ReportText.duration(s.durationMs)), tier \(s.tier.name) at its start</title></rect>\n"
        }
        // Context events (route changes, mutes by the host, …) as thin
        // dashed lines, the words in a tooltip.
        for m in marks where m.ts >= axis.start && m.ts <= axis.end {
            let x = f(axis.x(m.ts))
            out += "<line x1=\"\(x)\" y1=\"\(f(top))\" x2=\"\(x)\" y2=\"\(f(top + plotH))\" stroke=\"#57606a\" stroke-dasharray=\"2 2\" stroke-width=\"1.2\"><title>\(m.label.html)</title></line>\n"
        }
        let pts = bucket(series.points, range: axis, value: \.mos, worse: <)
        out += path(pts, axis: axis, y: y)
        if pts.count <= 120 {  // dots only where they can be told apart
            for p in pts { out += "<circle cx=\"\(f(axis.x(p.ts)))\" cy=\"\(f(y(p.v)))\" r=\"1.8\" fill=\"#1f2328\"/>" }
            out += "\n"
        }
        // The recomputed tier under the plot: unknown wherever no hold is.
        out += "<rect x=\"\(f(axis.x0))\" y=\"\(f(stripY))\" width=\"\(f(axis.x1 - axis.x0))\" height=\"\(f(stripH))\" fill=\"\(HTMLPage.colour(.unknown))\"/>"
        for h in mergedHolds(timeline?.holds ?? []) {
            let x0 = axis.x(h.from), x1 = axis.x(h.to)
            out += "<rect x=\"\(f(x0))\" y=\"\(f(stripY))\" width=\"\(f(max(x1 - x0, 0.2)))\" height=\"\(f(stripH))\" fill=\"\(HTMLPage.colour(h.tier))\"/>"
        }
        out += "<text class=\"small\" x=\"\(f(axis.x1 + 6))\" y=\"\(f(stripY + stripH))\">tier</text>\n"
        if series.points.isEmpty {
            out += "<text x=\"\(f((axis.x0 + axis.x1) / 2))\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\">no warm quality report</text>\n"
        }
        return out + "</svg>\n"
    }

    /// A small line chart of one metric (loss %, RTT ms) under the MOS
    /// chart, on the same time axis, with the issue threshold dashed.
    static func metricChart(_ series: QualitySeries, value: (QualitySeries.Point) -> Double,
                            name: String, unit: String, floor: Double, threshold: Double, axis a: TimeAxis) -> String {
        let top = 6.0, plotH = 46.0, height = top + plotH + 18
        let axis = TimeAxis(start: a.start, end: a.end, x0: left, x1: width - right)
        let pts = bucket(series.points, range: axis, value: value, worse: >)
        let maxV = max(floor, pts.map(\.v).max() ?? 0, threshold * 1.1)
        let yMax = niceCeiling(maxV)
        func y(_ v: Double) -> Double { top + plotH * (1 - min(max(v, 0), yMax) / yMax) }
        var out = open(height: height, label: "\(name) over time of \(series.uid)")
        out += "<rect x=\"\(f(axis.x0))\" y=\"\(f(top))\" width=\"\(f(axis.x1 - axis.x0))\" height=\"\(f(plotH))\" fill=\"#f6f8fa\"/>"
        out += axis.axis(top: top, bottom: top + plotH)
        out += "<text class=\"small\" x=\"\(f(axis.x0 - 6))\" y=\"\(f(top + 8))\" text-anchor=\"end\">\(JSON.number(yMax))</text>"
        out += "<text class=\"small\" x=\"\(f(axis.x0 - 6))\" y=\"\(f(top + plotH))\" text-anchor=\"end\">0</text>"
        out += "<text class=\"small\" x=\"4\" y=\"\(f(top + plotH / 2 + 3))\">\(name.html)</text>"
        let ty = f(y(threshold))
        out += "<line x1=\"\(f(axis.x0))\" y1=\"\(ty)\" x2=\"\(f(axis.x1))\" y2=\"\(ty)\" stroke=\"#d73027\" stroke-dasharray=\"4 3\" stroke-width=\"1\"/>"
        out += "<text class=\"small\" x=\"\(f(axis.x1 + 6))\" y=\"\(f(y(threshold) + 3.5))\">\(JSON.number(threshold)) \(unit.html)</text>\n"
        out += path(pts, axis: axis, y: y)
        return out + "</svg>\n"
    }

    /// Adjacent holds of the same tier as one: every warm report makes a
    /// hold, and a two-hour call would otherwise draw thousands of rects.
    static func mergedHolds(_ holds: [TierHold]) -> [TierHold] {
        var out: [TierHold] = []
        for h in holds {
            if let last = out.last, last.tier == h.tier, last.to == h.from {
                out[out.count - 1].to = h.to
            } else {
                out.append(h)
            }
        }
        return out
    }

    /// 1, 2 or 5 times a power of ten, at or above `x`.
    static func niceCeiling(_ x: Double) -> Double {
        var p = 1.0
        while p * 10 <= x { p *= 10 }
        for m in [1.0, 2, 5, 10] where m * p >= x { return m * p }
        return 10 * p
    }

    // MARK: Stall timeline

    /// One row of the stall timeline.
    struct TrackRow {
        var label: String
        var subscription: Subscription
        /// Per stall: a fill colour (e.g. shared vs own stalls in the track report).
        var stallColour: (Stall) -> String = { _ in "#d73027" }
    }

    /// One row per subscription on the meeting's time axis: grey while
    /// loading (subscribe → first frame), blue while flowing, red stalls, and
    /// under each stall's start a mark in the colour of the subscriber's
    /// tier at that instant (a green mark under a red stall is a stall the
    /// tier did not see).
    static func stallTimeline(_ rows: [TrackRow], axis a: TimeAxis, caption: String) -> String {
        let gutter = 230.0, rowH = 24.0, top = 6.0
        let axis = TimeAxis(start: a.start, end: a.end, x0: gutter, x1: width - 20)
        let height = top + rowH * Double(max(rows.count, 1)) + 20
        var out = open(height: height, label: caption)
        out += axis.axis(top: top, bottom: top + rowH * Double(max(rows.count, 1)))
        for (i, row) in rows.enumerated() {
            let s = row.subscription
            let y = top + rowH * Double(i) + 5, barH = 10.0
            out += "<text x=\"\(f(gutter - 8))\" y=\"\(f(y + 9))\" text-anchor=\"end\">\(label(row.label, limit: 38))<title>\(row.label.html)</title></text>"
            let xs = axis.x(s.subscribeTs), xe = max(axis.x(s.endTs), xs + 1)
            let xf = s.firstFrameTs.map { axis.x($0) } ?? xe
            out += "<rect x=\"\(f(xs))\" y=\"\(f(y))\" width=\"\(f(max(xf - xs, 0.5)))\" height=\"\(f(barH))\" fill=\"#bbbbbb\"><title>loading: subscribed, no frame yet</title></rect>"
            if s.firstFrameTs != nil {
                out += "<rect x=\"\(f(xf))\" y=\"\(f(y))\" width=\"\(f(max(xe - xf, 0.5)))\" height=\"\(f(barH))\" fill=\"#9ecae1\"/>"
                out += "<line x1=\"\(f(xf))\" y1=\"\(f(y - 2))\" x2=\"\(f(xf))\" y2=\"\(f(y + barH + 2))\" stroke=\"#08519c\" stroke-width=\"1.5\"><title>first frame after \(s.timeToFirstFrameMs ?? 0) ms</title></line>"
            } else {
                out += "<text class=\"small\" x=\"\(f(min(xs + 6, axis.x1 - 80)))\" y=\"\(f(y + 8.5))\">never rendered</text>"
            }
            for st in s.stalls {
                let x0 = axis.x(st.start), x1 = max(axis.x(st.end), x0 + 1.5)
                out += "<rect x=\"\(f(x0))\" y=\"\(f(y - 1))\" width=\"\(f(x1 - x0))\" height=\"\(f(barH + 2))\" fill=\"\(row.stallColour(st))\"><title>stall \(ReportText.offset(st.start, from: a.start)) for \(ReportText.duration(st.durationMs))\(st.open ? " (open at the end)" : ""), tier \(st.tier.name) at its start</title></rect>"
                out += "<rect x=\"\(f(x0))\" y=\"\(f(y + barH + 2))\" width=\"5\" height=\"4\" fill=\"\(HTMLPage.colour(st.tier))\" stroke=\"#0006\" stroke-width=\"0.5\"/>"
            }
            out += "\n"
        }
        if rows.isEmpty {
            out += "<text x=\"\(f((axis.x0 + axis.x1) / 2))\" y=\"\(f(top + 14))\" text-anchor=\"middle\">no subscriptions</text>\n"
        }
        return out + "</svg>\n"
    }

    // MARK: Stacked bars

    /// One stacked bar: `(label, [(colour, value, tooltip)])`.
    struct Bar {
        var label: String
        var parts: [(colour: String, value: Double, tip: String)]
        /// Text at the bar's end (e.g. the total).
        var note: String
    }

    /// Horizontal stacked bars on a common scale (`scale` = the value of a
    /// full-width bar; the longest bar when nil).
    static func stackedBars(_ bars: [Bar], scale: Double? = nil, caption: String) -> String {
        let gutter = 180.0, rowH = 22.0, top = 4.0, noteW = 120.0
        let height = top + rowH * Double(max(bars.count, 1)) + 4
        let full = scale ?? bars.map { $0.parts.reduce(0) { $0 + $1.value } }.max() ?? 1
        let plotW = width - gutter - noteW
        var out = open(height: height, label: caption)
        for (i, bar) in bars.enumerated() {
            let y = top + rowH * Double(i) + 3
            out += "<text x=\"\(f(gutter - 8))\" y=\"\(f(y + 11))\" text-anchor=\"end\">\(label(bar.label, limit: 30))<title>\(bar.label.html)</title></text>"
            var x = gutter
            for p in bar.parts where p.value > 0 {
                let w = full > 0 ? plotW * p.value / full : 0
                out += "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(w))\" height=\"14\" fill=\"\(p.colour)\"><title>\(p.tip.html)</title></rect>"
                x += w
            }
            out += "<text class=\"small\" x=\"\(f(x + 6))\" y=\"\(f(y + 11))\">\(bar.note.html)</text>\n"
        }
        return out + "</svg>\n"
    }
}

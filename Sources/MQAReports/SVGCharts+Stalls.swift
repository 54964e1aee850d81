import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

extension SVGCharts {
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
    /// tier did not see). The time axis is at the top, where a reader
    /// starts; a long timeline repeats it at the bottom.
    static func stallTimeline(_ rows: [TrackRow], axis a: TimeAxis, caption: String) -> String {
        var out = ""
        writeStallTimeline(count: rows.count, { rows[$0] }, axis: a, caption: caption) { out += $0 }
        return out
    }

    /// `stallTimeline` of `count` rows that `row` makes, each handed to
    /// `emit` as it is drawn (a 20,000-viewer webinar's chart is 25 MB).
    static func writeStallTimeline(count: Int, _ row: (Int) -> TrackRow, axis a: TimeAxis, caption: String,
                                   _ emit: (String) -> Void) {
        let gutter = 230.0, rowH = 24.0, top = 6.0 + TimeAxis.labelHeight
        let axis = a.on(gutter, width - 20)
        let bottom = top + rowH * Double(max(count, 1))
        let repeatAxis = count > 12
        let height = bottom + (repeatAxis ? TimeAxis.labelHeight : 4)
        var out = open(height: height, label: caption)
        out += axis.axis(top: top, bottom: bottom, labels: true, above: true)
        if repeatAxis { out += axis.axis(top: bottom, bottom: bottom, labels: true) }
        emit(out)
        for i in 0..<count {
            let row = row(i)
            let s = row.subscription
            let y = top + rowH * Double(i) + 5, barH = 10.0
            out = "<text x=\"\(f(gutter - 8))\" y=\"\(f(y + 9))\" text-anchor=\"end\">\(label(row.label, limit: 38))<title>\(row.label.html)</title></text>"
            let xs = axis.x(s.subscribeTs), xe = max(axis.x(s.endTs), xs + 1)
            let xf = s.firstFrameTs.map { axis.x($0) } ?? xe
            out += rect(xs, y, max(xf - xs, 0.5), barH, fill: "#bbbbbb", tip: "\(s.track): loading, subscribed, no frame yet")
            if s.firstFrameTs != nil {
                out += rect(xf, y, max(xe - xf, 0.5), barH, fill: "#9ecae1")
                out += vline(xf, y - 2, y + barH + 2, stroke: "#08519c", extra: "stroke-width=\"1.5\"",
                             tip: "\(s.track): first frame after \(s.timeToFirstFrameMs ?? 0) ms")
            } else {
                out += text(min(xs + 6, axis.x1 - 80), y + 8.5, "never rendered")
            }
            for st in s.stalls {
                let x0 = axis.x(st.start), x1 = max(axis.x(st.end), x0 + 1.5)
                let tip = "\(s.subscriber) ← \(s.track) (\(s.publisher)): stall at \(ReportText.offset(st.start, from: a.start)) for "
                    + "\(ReportText.duration(st.durationMs))\(st.open ? " (open at the end)" : ""), tier \(st.tier.name) at its start"
                out += rect(x0, y - 1, x1 - x0, barH + 2, fill: row.stallColour(st), tip: tip)
                out += rect(x0, y + barH + 2, 5, 4, fill: HTMLPage.colour(st.tier), extra: "stroke=\"#0006\" stroke-width=\"0.5\"")
            }
            emit(out + "\n")
        }
        out = count == 0 ? text((axis.x0 + axis.x1) / 2, top + 14, "no subscriptions", anchor: "middle", small: false) + "\n" : ""
        emit(out + "</svg>\n")
    }

    /// The legend of the stall timeline, as HTML (it goes above the chart).
    static func stallLegend(_ keys: [(colour: String, name: String)], note: String) -> String {
        var out = "<p class=\"legend\">"
        for k in keys {
            out += "<span class=\"key\"><span class=\"swatch\" style=\"background:\(k.colour)\"></span>\(k.name.html)</span> "
        }
        return out + note.html + "</p>\n"
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
        var out = ""
        writeStackedBars(count: bars.count, { bars[$0] }, scale: scale, caption: caption) { out += $0 }
        return out
    }

    /// `stackedBars` of `count` bars that `bar` makes, each handed to
    /// `emit` as it is drawn (without `scale`, each is made twice).
    static func writeStackedBars(count: Int, _ bar: (Int) -> Bar, scale: Double? = nil, caption: String,
                                 _ emit: (String) -> Void) {
        let gutter = 180.0, rowH = 22.0, top = 4.0, noteW = 120.0
        let height = top + rowH * Double(max(count, 1)) + 4
        let full = scale ?? (0..<count).map { bar($0).parts.reduce(0) { $0 + $1.value } }.max() ?? 1
        let plotW = width - gutter - noteW
        emit(open(height: height, label: caption))
        for i in 0..<count {
            let bar = bar(i)
            let y = top + rowH * Double(i) + 3
            var out = "<text x=\"\(f(gutter - 8))\" y=\"\(f(y + 11))\" text-anchor=\"end\">\(label(bar.label, limit: 30))<title>\(bar.label.html)</title></text>"
            var x = gutter
            for p in bar.parts where p.value > 0 {
                let w = full > 0 ? plotW * p.value / full : 0
                out += rect(x, y, w, 14, fill: p.colour, tip: p.tip)
                x += w
            }
            emit(out + text(x + 6, y + 11, bar.note) + "\n")
        }
        emit("</svg>\n")
    }
}

import Foundation
import MQABase
import MQAModel
import MQAAnalysis

/// `mqa report trends [--by FIELD] [--every day|week]`: the fleet's
/// cohort figures per period, with their 95 % intervals; html adds a chart.
public struct TrendsReport: RenderedReport, Sendable {
    public var table: TrendTable

    /// As `CohortsReport.config`.
    public var config = TierConfig()

    public init(_ table: TrendTable) { self.table = table }

    /// `2026-11-02` (a week is named by its Monday), the date on the
    /// periods' own calendar.
    func label(_ start: Int64) -> String { TrendsReport.label(start, table.zone) }
    static func label(_ start: Int64, _ zone: ClockZone) -> String { String(zone.dateTime(start).prefix(10)) }

    /// `UTC`, or `Europe/Berlin`: whose days the periods are.
    var calendar: String { table.zone.identifier }

    public var json: JSON {
        .object([
            ("schema", .string("mqa.trends/1")),
        ] + config.jsonMember("config") + [
            ("every", .string(table.every.rawValue)),
            ("zone", .string(calendar)),
            ("by", table.field.map { .string($0.rawValue) } ?? .null),
            ("meetings", .int(Int64(table.meetings))),
            ("method", CohortsReport.methodJSON(table.options)),
            ("periods", .array(table.rows.map { row in
                guard case .object(let fields) = CohortsReport.json(row.figures) else { return .null }
                var out: [(String, JSON)] = [("period", .string(label(row.periodStart))), ("start", .int(row.periodStart))]
                // Without --by every row is the whole fleet: no value key.
                out += fields.filter { table.field != nil || $0.0 != "value" }
                return .object(out)
            })),
        ])
    }

    var heading: String {
        "Trends per \(table.every.rawValue)" + (table.field.map { " by \($0.rawValue)" } ?? "") + ": \(table.meetings) meetings"
    }

    var rowsTable: ReportTable {
        var headers = [table.every.rawValue]
        if let f = table.field { headers.append(f.rawValue) }
        headers += ["people", "meetings", "watched", "stall rate (95 % CI)", "poor/bad (95 % CI)", "MOS p50",
                    "abn. disconnects (95 % CI)", "first frame p90", "never rendered (95 % CI)", "note"]
        let offset = table.field == nil ? 0 : 1
        var t = ReportTable(headers: headers, numeric: Set((1 + offset)...(9 + offset)))
        for row in table.rows {
            var cells = CohortsReport.cells(row.figures)
            if table.field == nil { cells.removeFirst() }
            // A date, unbroken in HTML: a narrow column wrapped it at its hyphens.
            let date = label(row.periodStart)
            t.add([.markup(html: HTMLPage.nowrap(date), text: date)] + cells,
                  htmlClass: row.figures.insufficient ? "insufficient" : nil)
        }
        return t
    }

    /// Which calendar the periods are of: the zone's days (and weeks).
    public var periodsNote: String {
        "Periods by meeting start (\(calendar) days\(table.every == .week ? "; weeks from Monday" : ""))."
    }

    public var markdown: String {
        "# \(heading)\n\n" + ConfigNote.paragraph(config) + periodsNote + "\n\n"
            + rowsTable.markdown + "\n" + CohortsReport.methodText(table.options, splits: table.field?.changesInCall ?? false) + "\n"
    }

    public var csv: String {
        CohortsReport.csvTable(table.rows.map { ([.literal(label($0.periodStart))], $0.figures, [.int(Int($0.periodStart))]) },
                               leading: ["period"], value: table.field != nil, trailing: ["start"]).csv
    }

    public var html: String {
        var body = "<h1>\(heading.html)</h1>\n" + ConfigNote.htmlParagraph(config)
            + "<p>\(periodsNote.html)</p>\n"
        body += TrendChart.stallRates(table)
        body += rowsTable.html
        body += "<p>\(CohortsReport.methodText(table.options, splits: table.field?.changesInCall ?? false).html)</p>\n"
        return HTMLPage.document(title: heading, body: body)
    }
}

/// The trends chart: stall rate per period, a line per value (the six
/// with the most participants), each point with its 95 % interval.
enum TrendChart {
    /// Okabe–Ito: distinct for most colour-blind readers.
    static let palette = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9"]

    static func stallRates(_ table: TrendTable) -> String {
        let periods = Array(Set(table.rows.map(\.periodStart))).sorted()
        guard !periods.isEmpty else { return "" }
        var people: [String?: Int] = [:]
        for r in table.rows { people[r.figures.value, default: 0] += r.figures.participants }
        let shown = table.values.sorted { (people[$0] ?? 0, $1 ?? "") > (people[$1] ?? 0, $0 ?? "") }.prefix(palette.count)
        let lines = table.values.filter { shown.contains($0) }
        let rows = table.rows.filter { lines.contains($0.figures.value) && $0.figures.stallRate != nil }
        let top = 30.0, plot = 220.0, height = top + plot + 40 + (table.field == nil ? 0 : 22)
        let maxValue = rows.map { max($0.figures.stallRateCI?.upper ?? 0, $0.figures.stallRate ?? 0) }.max() ?? 0
        let scale = CohortChart.niceCeiling(maxValue)
        let x0 = SVGCharts.left, x1 = SVGCharts.width - SVGCharts.right
        func x(_ p: Int64) -> Double {
            let i = Double(periods.firstIndex(of: p) ?? 0)
            return periods.count == 1 ? (x0 + x1) / 2 : x0 + (x1 - x0) * i / Double(periods.count - 1)
        }
        func y(_ v: Double) -> Double { top + plot - plot * (scale > 0 ? min(v / scale, 1) : 0) }
        let f = SVGCharts.f
        var out = SVGCharts.open(height: height, label: "Stall rate per \(table.every.rawValue) with 95 % intervals")
        out += "<text x=\"\(f(x0))\" y=\"16\" font-size=\"12\">stall rate (stalled / watched) per \(table.every.rawValue), 95 % intervals</text>\n"
        // As many decimals as the ticks need to read exactly (quarters of
        // 5 %: 1.25 and 3.75, not 1.2 and 3.8), four at most.
        var decimals = 1
        func exact(_ d: Int) -> Bool {
            (0...4).allSatisfy { k in
                let v = scale * Double(k) / 4 * 100, unit = pow(10.0, Double(d))
                return abs((v * unit).rounded() - v * unit) < 1e-6
            }
        }
        while decimals < 4, !exact(decimals) { decimals += 1 }
        for k in 0...4 {
            let v = scale * Double(k) / 4
            out += "<line x1=\"\(f(x0))\" y1=\"\(f(y(v)))\" x2=\"\(f(x1))\" y2=\"\(f(y(v)))\" stroke=\"#d0d7de\" stroke-width=\"0.6\"/>"
            out += "<text x=\"\(f(x0 - 6))\" y=\"\(f(y(v) + 4))\" font-size=\"11\" text-anchor=\"end\">\(String(format: "%.\(decimals)f %%", v * 100))</text>\n"
        }
        // Periods are spaced evenly whatever lies between them, so the line
        // is broken where periods without meetings were left out.
        let periodMs: Int64 = (table.every == .day ? 1 : 7) * 86_400_000 + 2 * 3_600_000  // a clock change's hour spared
        var previous: Int64?
        // At most ~12 period labels.
        let every = max(1, (periods.count + 11) / 12)
        for (i, p) in periods.enumerated() where i % every == 0 {
            out += "<text x=\"\(f(x(p)))\" y=\"\(f(top + plot + 16))\" font-size=\"11\" text-anchor=\"middle\">\(TrendsReport.label(p, table.zone).dropFirst(5))</text>\n"
        }
        for (n, value) in lines.enumerated() {
            let colour = palette[n]
            let mine = rows.filter { $0.figures.value == value }
            var d = ""
            previous = nil
            for r in mine {
                let px = x(r.periodStart) + Double(n - lines.count / 2) * 3  // intervals side by side, not on top
                if let ci = r.figures.stallRateCI {
                    out += "<line x1=\"\(f(px))\" y1=\"\(f(y(ci.lower)))\" x2=\"\(f(px))\" y2=\"\(f(y(ci.upper)))\" stroke=\"\(colour)\" stroke-width=\"1.2\" opacity=\"0.6\"/>"
                }
                let py = y(r.figures.stallRate ?? 0)
                let gap = previous.map { r.periodStart - $0 > periodMs } ?? true
                d += (gap ? "M" : "L") + f(px) + " " + f(py) + " "
                previous = r.periodStart
                let fill = r.figures.insufficient ? "#ffffff" : colour
                out += "<circle cx=\"\(f(px))\" cy=\"\(f(py))\" r=\"3\" fill=\"\(fill)\" stroke=\"\(colour)\" stroke-width=\"1.2\"/>\n"
            }
            if !d.isEmpty {
                out += "<path d=\"\(d.dropLast())\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.6\" stroke-linejoin=\"round\"/>\n"
            }
            if table.field != nil {
                let lx = x0 + Double(n) * 130
                out += "<rect x=\"\(f(lx))\" y=\"\(f(height - 16))\" width=\"10\" height=\"10\" fill=\"\(colour)\"/>"
                out += "<text x=\"\(f(lx + 14))\" y=\"\(f(height - 7))\" font-size=\"11\">\(SVGCharts.label(value ?? "(unknown)", limit: 16))</text>\n"
            }
        }
        return out + "</svg>\n"
    }
}

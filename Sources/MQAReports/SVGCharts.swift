import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

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

    /// A number for an SVG attribute: `x` rounded to 0.1, as
    /// `JSON.number` writes that value ("12", "12.3", "-0.5").
    ///
    /// Written from the integer number of tenths, not through `Double`'s
    /// shortest-text algorithm: charts hold most of a page's numbers, and
    /// formatting them was a tenth of `report meeting --all --format html`.
    /// The text is the same: the double nearest k/10 prints as k/10 with
    /// one decimal, or as an integer when k is a multiple of 10.
    static func f(_ x: Double) -> String {
        let tenths = (x * 10).rounded()
        // Up to 11 digits, a sign and a tenth fit a small string (15 bytes,
        // no allocation); larger values, and NaN (which fails the
        // comparison), go the general way.
        guard abs(tenths) < 1e12 else { return JSON.number(tenths / 10) }
        let t = Int64(tenths)
        let m = t.magnitude
        let whole = m / 10, digit = m % 10
        return String(unsafeUninitializedCapacity: 15) { buf in
            var n = 0
            if t < 0 {
                buf[n] = UInt8(ascii: "-")
                n += 1
            }
            // The whole part's digits, most significant first.
            var divisor: UInt64 = 1
            while divisor <= whole / 10 { divisor *= 10 }
            var rest = whole
            while true {
                buf[n] = UInt8(ascii: "0") + UInt8(rest / divisor)
                n += 1
                rest %= divisor
                if divisor == 1 { break }
                divisor /= 10
            }
            if digit != 0 {
                buf[n] = UInt8(ascii: ".")
                buf[n + 1] = UInt8(ascii: "0") + UInt8(digit)
                n += 2
            }
            return n
        }
    }

    static func open(height: Double, label: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(label.html)\">"
            + "<title>\(label.html)</title>\n"
    }

    /// Cuts `text` to `limit` characters with an ellipsis, then escapes it.
    static func label(_ text: String, limit: Int) -> String {
        (text.count > limit ? String(text.prefix(limit - 1)) + "…" : text).html
    }

    /// Reduces `points` to at most `maxPoints` by time buckets, keeping the
    /// worst value of each bucket (the lowest MOS, the highest of the other
    /// metrics) so that a short dip is never averaged away. A bucket that
    /// contains a line break keeps it. `value` reads one metric.
    static func bucket(_ points: [QualitySeries.Point], range: TimeAxis, value: (QualitySeries.Point) -> Double)
        -> [(ts: Int64, v: Double, breaks: Bool)]
    {
        guard points.count > maxPoints else { return points.map { (ts: $0.ts, v: value($0), breaks: $0.breaksLine) } }
        var buckets = PointBuckets(start: range.start, end: range.end)
        // Straight from the points: a copy of a series of millions first
        // would cost more memory than the whole chart.
        for point in points { buckets.add(point) }
        return buckets.kept.map { (ts: $0.ts, v: value($0), breaks: $0.breaksLine) }
    }

    /// `bucket`'s fold over points in time order. Where a bucket entry
    /// starts depends only on the points' times and line breaks, never on
    /// their values, so every metric's entries fall at the same times, and
    /// an entry may keep each metric's worst value at once (`add`): a
    /// series of millions of points is bucketed as it is made
    /// (`QualitySeries.init(_:reports:config:bucketing:)`), and bucketing
    /// the entries again gives them back unchanged.
    struct PointBuckets {
        let start: Int64
        let span: Int64
        private(set) var kept: [QualitySeries.Point] = []
        private var current = -1

        init(start: Int64, end: Int64) {
            self.start = start
            span = max(end - start, 1)
        }

        /// Adds a point, keeping every metric's worst value of its bucket
        /// entry: the lowest MOS, the highest loss, RTT, jitter and bitrate
        /// (the entry keeps the time and line break of its first point).
        mutating func add(_ p: QualitySeries.Point) {
            let b = Int(Double(p.ts - start) / Double(span) * Double(maxPoints))
            if b != current || kept.isEmpty {
                kept.append(p)
                current = b
            } else if p.breaksLine {
                kept.append(p)
            } else {
                let k = kept.count - 1
                if p.mos < kept[k].mos { kept[k].mos = p.mos }
                if p.loss > kept[k].loss { kept[k].loss = p.loss }
                if p.rtt > kept[k].rtt { kept[k].rtt = p.rtt }
                if p.jitter > kept[k].jitter { kept[k].jitter = p.jitter }
                if p.bitrate > kept[k].bitrate { kept[k].bitrate = p.bitrate }
            }
        }
    }

    /// A polyline path broken at every `breaks` point.
    static func path(_ pts: [(ts: Int64, v: Double, breaks: Bool)], axis: TimeAxis, y: (Double) -> Double) -> String {
        guard !pts.isEmpty else { return "" }
        var d = "<path d=\""
        d.reserveCapacity(pts.count * 14 + 100)
        // Appended piece by piece into the element: a `+` chain made three
        // strings a point, and cutting a trailing space copied them all.
        for (i, p) in pts.enumerated() {
            if i > 0 { d += " " }
            d += i == 0 || p.breaks ? "M" : "L"
            d += f(axis.x(p.ts))
            d += " "
            d += f(y(p.v))
        }
        d += "\" fill=\"none\" stroke=\"#1f2328\" stroke-width=\"1.4\" stroke-linejoin=\"round\"/>\n"
        return d
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

    /// A filled rectangle, with a tooltip when `tip` is given (escaped here).
    static func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, fill: String, extra: String = "", tip: String? = nil) -> String {
        let head = "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(max(w, 0)))\" height=\"\(f(max(h, 0)))\" fill=\"\(fill)\"\(extra.isEmpty ? "" : " " + extra)"
        return tip.map { head + "><title>\($0.html)</title></rect>" } ?? head + "/>"
    }

    /// A vertical line from `y0` to `y1`, with an optional tooltip.
    static func vline(_ x: Double, _ y0: Double, _ y1: Double, stroke: String, extra: String = "", tip: String? = nil) -> String {
        let head = "<line x1=\"\(f(x))\" y1=\"\(f(y0))\" x2=\"\(f(x))\" y2=\"\(f(y1))\" stroke=\"\(stroke)\"\(extra.isEmpty ? "" : " " + extra)"
        return tip.map { head + "><title>\($0.html)</title></line>" } ?? head + "/>"
    }

    /// Text at (x, y); `text` is escaped here.
    static func text(_ x: Double, _ y: Double, _ text: String, anchor: String = "start", small: Bool = true) -> String {
        "<text\(small ? " class=\"small\"" : "") x=\"\(f(x))\" y=\"\(f(y))\"\(anchor == "start" ? "" : " text-anchor=\"\(anchor)\"")>\(text.html)</text>"
    }
}

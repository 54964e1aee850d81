import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

extension SVGCharts {
    /// Maps meeting time onto the plot's x range, and draws the time axis:
    /// wall-clock time (UTC, or the `--tz` zone) over the offset from the meeting's start, so a
    /// chart can be matched both to a customer's "around 10:05" and to the
    /// `+m:ss` offsets of the tables.
    struct TimeAxis {
        var start: Int64
        var end: Int64
        var x0: Double
        var x1: Double
        /// The zone of the wall-clock labels (`--tz`; UTC by default).
        var zone: ClockZone = .utc

        /// The same time range on another x range.
        func on(_ x0: Double, _ x1: Double) -> TimeAxis { TimeAxis(start: start, end: end, x0: x0, x1: x1, zone: zone) }

        func x(_ t: Int64) -> Double {
            x0 + (x1 - x0) * Double(min(max(t, start), end) - start) / Double(max(end - start, 1))
        }

        /// The tick step: a round step giving at most about 8 ticks.
        var step: Int64 {
            let steps: [Int64] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200, 86400]
                .map { $0 * 1000 }
            let span = max(end - start, 1)
            return steps.first { span / $0 <= 8 } ?? span
        }

        /// Tick instants at round wall-clock times (multiples of `step`
        /// since local midnight, so 10:00, 10:10, … in the zone), inside
        /// the range. Zone offsets are whole minutes in practice, but a
        /// tick is placed by the offset at the range's start, so a clock
        /// change inside a chart moves its later labels off round values
        /// rather than the grid.
        var ticks: [Int64] {
            var out: [Int64] = []
            let s = step
            let shift = Int64(zone.offsetSeconds(at: start)) * 1000
            let local = start + shift
            var t = (local / s + (local % s > 0 ? 1 : 0)) * s - shift
            while t <= end { out.append(t); t += s }
            return out.isEmpty ? [start] : out
        }

        /// `0:30`, `12:00`, `1:05:00`: offsets from the start, whole seconds.
        static func label(_ ms: Int64) -> String {
            String(ReportText.offset(ms, from: 0, milliseconds: false).dropFirst())
        }

        /// `10:05` (or `10:05:30` when ticks are under a minute apart) in
        /// the zone. The offset under it is exact (`+4:12`), since the
        /// meeting rarely starts on a round minute.
        func clock(_ t: Int64) -> String {
            String(zone.clock(t).prefix(step < 60_000 ? 8 : 5))
        }

        /// Grid lines over `[top, bottom]` and labels: two lines (clock,
        /// then `+offset`) below `bottom`, or above `top` when `above`.
        func axis(top: Double, bottom: Double, labels: Bool = true, above: Bool = false) -> String {
            var out = ""
            for t in ticks {
                let px = x(t)
                out += vline(px, top, bottom, stroke: "#0000001a")
                guard labels else { continue }
                let y1 = above ? top - 16 : bottom + 12, y2 = above ? top - 4 : bottom + 24
                out += text(px, y1, clock(t), anchor: "middle") + text(px, y2, "+" + TimeAxis.label(t - start), anchor: "middle")
            }
            return out + "\n"
        }

        /// Room the two-line labels take.
        static let labelHeight = 28.0
    }
}

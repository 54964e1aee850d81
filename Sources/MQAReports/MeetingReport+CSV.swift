import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// The CSV form of a meeting report: **one table, one header row**, one row
/// per participant (`section` = `participant`) followed by one row per
/// subscription (`section` = `track`). A single rectangular table imports
/// into any spreadsheet or data frame as is; filter on `section`. Columns
/// that do not apply to a row's section are empty, as are quality columns
/// with no warm report and every quality column of a CDN meeting.
///
/// Times are ms since the epoch, durations ms, ratios 0…1. Text cells go
/// through `CSV.cell`, which quotes and defuses formula-like text.
extension MeetingReport {
    /// The header row, in order.
    public static let csvColumns: [String] = [
        "section", "meeting", "uid", "publisher", "track", "kind",
        "connections", "disconnects", "abnormalDisconnects", "reconnects", "warmReports", "coldReports",
        "mosMean", "mosP5", "mosP50", "mosP95", "lossPctMean", "lossPctP95",
        "rttMsMean", "rttMsP95", "jitterMsMean", "jitterMsP95", "bitrateKbpsMean", "bitrateKbpsP5",
        "excellentMs", "goodMs", "fairMs", "poorMs", "badMs", "unknownMs",
        "tierChanges", "flaps", "sdkTierAgreement",
        "subscribeTs", "endTs", "firstFrameTs", "timeToFirstFrameMs",
        "stallCount", "stalledMs", "stallRatio", "stallsUnderGoodTier",
        "issues",
    ]

    /// `x` to `places` decimals, as `JSON.rounded` writes it.
    static func round(_ x: Double, _ places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (x * scale).rounded() / scale
    }

    /// `mqa report meeting --format csv`.
    public var csv: String {
        var out = MeetingReport.csvColumns.joined(separator: ",") + "\n"
        let meeting = CSV.cell(header.meeting)
        let blank = { (n: Int) in [String](repeating: "", count: n) }
        let issuesOf = participantIssues
        for p in analysis.participants {
            var row = ["participant", meeting, CSV.cell(p.uid), "", "", ""]
            row += [p.connections, p.disconnects.count, p.disconnects.count { $0.error != nil }, p.reconnects,
                    p.warmReports, p.coldReports].map { String($0) }
            let n = CSV.number
            // Means rounded as in the JSON; percentiles are logged values.
            func mean(_ x: Double?, _ places: Int) -> String { n(x.map { MeetingReport.round($0, places) }) }
            row += [mean(p.mos?.mean, JSON.Places.mos), mean(p.mos?.p5, JSON.Places.mosValue),
                    mean(p.mos?.p50, JSON.Places.mosValue), mean(p.mos?.p95, JSON.Places.mosValue),
                    mean(p.lossPct?.mean, JSON.Places.percent), n(p.lossPct?.p95), mean(p.rttMs?.mean, JSON.Places.ms), n(p.rttMs?.p95),
                    mean(p.jitterMs?.mean, JSON.Places.ms), n(p.jitterMs?.p95), mean(p.bitrateKbps?.mean, JSON.Places.kbps),
                    n(p.bitrateKbps?.p5)]
            row += hasQualityData ? Tier.reportOrder.map { String(p.tierMs[$0]) } : blank(6)
            row += hasQualityData ? [String(p.tierChanges), String(p.flaps)] : blank(2)
            row += [mean(p.sdkTierAgreement, JSON.Places.ratio)]
            row += blank(8)
            row += [CSV.cell((issuesOf[p.uid] ?? []).map(\.code.rawValue).joined(separator: " "))]
            out += row.joined(separator: ",") + "\n"
        }
        for s in analysis.subscriptions {
            var row = ["track", meeting, CSV.cell(s.subscriber), CSV.cell(s.publisher), CSV.cell(s.track),
                       CSV.cell(s.kind ?? "")]
            row += blank(27)
            row += [String(s.subscribeTs), String(s.endTs), s.firstFrameTs.map { String($0) } ?? "",
                    s.timeToFirstFrameMs.map { String($0) } ?? "", String(s.stallCount), String(s.stalledMs),
                    CSV.number(MeetingReport.round(s.stallRatio, JSON.Places.ratio)), String(s.stallsUnderGoodTier)]
            row += [CSV.cell(trackIssueCodes(s).map(\.rawValue).joined(separator: " "))]
            out += row.joined(separator: ",") + "\n"
        }
        // A report on damaged data says so in every format: one row per
        // chunk left out, the reason in the `issues` column.
        for d in damage {
            out += (["damaged_chunk", meeting] + blank(MeetingReport.csvColumns.count - 3) + [CSV.cell(d)])
                .joined(separator: ",") + "\n"
        }
        return out
    }
}

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
        "connections", "disconnects", "abnormal_disconnects", "reconnects", "warm_reports", "cold_reports",
        "mos_mean", "mos_p5", "mos_p50", "mos_p95", "loss_pct_mean", "loss_pct_p95",
        "rtt_ms_mean", "rtt_ms_p95", "jitter_ms_mean", "jitter_ms_p95", "bitrate_kbps_mean", "bitrate_kbps_p5",
        "excellent_ms", "good_ms", "fair_ms", "poor_ms", "bad_ms", "unknown_ms",
        "tier_changes", "flaps", "sdk_tier_agreement",
        "subscribe_ts", "end_ts", "first_frame_ts", "time_to_first_frame_ms",
        "stall_count", "stalled_ms", "stall_ratio", "stalls_under_good_tier",
        "issues",
    ]

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
            row += [n(p.mos?.mean), n(p.mos?.p5), n(p.mos?.p50), n(p.mos?.p95),
                    n(p.lossPct?.mean), n(p.lossPct?.p95), n(p.rttMs?.mean), n(p.rttMs?.p95),
                    n(p.jitterMs?.mean), n(p.jitterMs?.p95), n(p.bitrateKbps?.mean), n(p.bitrateKbps?.p5)]
            row += hasQualityData ? Tier.reportOrder.map { String(p.tierMs[$0]) } : blank(6)
            row += hasQualityData ? [String(p.tierChanges), String(p.flaps)] : blank(2)
            row += [n(p.sdkTierAgreement)]
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
                    CSV.number(s.stallRatio), String(s.stallsUnderGoodTier)]
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

import Foundation
import MQABase
import MQAModel
import MQAAnalysis

/// `mqa tune --by FIELD`: each cohort's best config beside the fleet's.
public struct TuneCohortsReport: Sendable {
    public var tuning: CohortTuning
    /// The grid's keys: the configs differ only there.
    public var keys: [String]
    /// Rows per value in md and csv; the JSON ranks every config.
    public var top: Int
    /// The values of the keys the grid leaves out (`--config`).
    public var base = TierConfig()

    public init(_ tuning: CohortTuning, keys: [String], top: Int = 5) {
        self.tuning = tuning
        self.keys = keys
        self.top = top
    }

    public func render(_ format: ReportFormat) -> String {
        switch format {
        case .json: json.rendered(pretty: true) + "\n"
        case .csv: csv
        case .md, .html: markdown
        }
    }

    /// `thresholds=[4.2,3.8,3.3,2.8] hysteresis=0.1`: the grid keys only.
    func configText(_ c: TierConfig) -> String {
        keys.map { "\($0)=\(TuneReport.value(of: $0, in: c))" }.joined(separator: " ")
    }

    /// The keys where `a` differs from `b`, as `key a instead of b`.
    func difference(_ a: TierConfig, _ b: TierConfig) -> String {
        let parts = keys.compactMap { k -> String? in
            let x = TuneReport.value(of: k, in: a), y = TuneReport.value(of: k, in: b)
            return x == y ? nil : "\(k) \(x) instead of \(y)"
        }
        return parts.isEmpty ? "the fleet's best config" : parts.joined(separator: ", ")
    }

    /// "on cellular, thresholds [..] instead of [..]: F1 0.71 vs 0.58".
    func sentence(_ c: CohortTuning.Cohort) -> String {
        guard let best = c.ranking.first else { return "" }
        let name = c.value ?? "unknown"
        // No quality report (a CDN cohort): no tier, no alarm, nothing to tune.
        if c.reports == 0 { return "on \(name), no quality data (no quality reports): nothing to tune" }
        if best.gridIndex == c.fleetBest.gridIndex {
            return "on \(name), the fleet's best config is best too: F1 \(f3(best.score.f1))"
        }
        // An equal F1 (exactly) is no reason to change: the order between
        // them only follows recall and alarms, which F1 already weighs.
        if best.score.compareF1(c.fleetBest.score) == 0 {
            return "on \(name), the fleet's best config is as good: F1 \(f3(best.score.f1))"
        }
        return "on \(name), \(difference(best.config, c.fleetBest.config)): F1 \(f3(best.score.f1)) vs \(f3(c.fleetBest.score.f1))"
    }

    func f3(_ x: Double) -> String { String(format: "%.3f", x) }

    func rounded(_ x: Double) -> Double { (x * 10_000).rounded() / 10_000 }

    /// `+0.052 (-0.010 to +0.110)`: the gain and its interval; the gain
    /// alone when the fleet's best config is the cohort's (it is 0 then).
    func gainText(_ c: CohortTuning.Cohort) -> String {
        guard let ci = c.gainCI, c.ranking.first?.gridIndex != c.fleetBest.gridIndex else { return signed(c.gain) }
        return "\(signed(c.gain)) (\(signed(ci.lower)) to \(signed(ci.upper)))"
    }

    /// `+0.004`, `-0.010`; a value that rounds to 0 is `+0.000`, never `-0.000`.
    func signed(_ x: Double) -> String {
        let r = (x * 1000).rounded() / 1000
        return String(format: "%+.3f", r == 0 ? 0 : r)
    }

    public var json: JSON {
        let head: [(String, JSON)] = [("schema", .string("mqa.tune-cohorts/1"))]
            + base.jsonMember("base") + [("by", .string(tuning.field.rawValue))]
        return .object(head + [
            ("fleetBest", tuning.fleet.first?.json ?? .null),
            ("cohorts", .array(tuning.cohorts.map { c in
                .object([
                    ("value", .optional(c.value)),
                    ("clients", .int(Int64(c.clients))),
                    ("stalls", .int(Int64(c.stalls))),
                    ("reports", .int(Int64(c.reports))),
                    ("best", c.ranking.first?.json ?? .null),
                    ("fleetBest", c.fleetBest.json),
                    ("meetings", .int(Int64(c.meetings))),
                    ("gain", .rounded(c.gain, places: JSON.Places.ratio)),
                    ("gainCI", c.gainCI.map { ConfidenceInterval(lower: rounded($0.lower), upper: rounded($0.upper)).json } ?? .null),
                    ("summary", .string(sentence(c))),
                    // Every config, as the fleet's JSON lists them (`top` is for md and csv).
                    ("ranking", .array(c.ranking.map(\.json))),
                ])
            })),
        ])
    }

    public var markdown: String {
        var out = "# Tuning by \(tuning.field.rawValue): \(tuning.fleet.count) configs, \(tuning.cohorts.count) cohorts\n\n"
        out += ConfigNote.baseParagraph(base, gridKeys: keys)
        if let best = tuning.fleet.first {
            out += "Fleet-wide best: \(configText(best.config)) (F1 \(f3(best.score.f1))).\n\n"
        }
        var t = ReportTable(headers: [tuning.field.rawValue, "clients", "stalls", "best config", "F1", "fleet's best here",
                                      "gain (95 % CI)"],
                            numeric: [1, 2, 4, 5, 6])
        for c in tuning.cohorts {
            guard let best = c.ranking.first else { continue }
            t.add([c.value.map(ReportCell.text) ?? .literal("(unknown)"), .int(c.clients), .int(c.stalls),
                   .literal(configText(best.config)), .number(.double(best.score.f1), shown: f3(best.score.f1)),
                   .number(.double(c.fleetBest.score.f1), shown: f3(c.fleetBest.score.f1)),
                   .number(.double(c.gain), shown: gainText(c))])
        }
        out += t.markdown + "\n"
        for c in tuning.cohorts where !c.ranking.isEmpty { out += "- " + Markdown.escape(sentence(c)) + "\n" }
        out += "\nEach cohort's clients are scored alone (a client's tier and stalls depend only on its own reports). "
            + "A cohort with few stalls has a noisy F1: its best config may only fit the noise. "
            + "The gain's interval resamples the cohort's meetings (\(tuning.bootstrap.replicates) resamples, seed \(tuning.bootstrap.seed)) with the two configs held fixed: "
            + "one that reaches 0 shows no gain; one above 0 is still optimistic, since the best config was picked on the same data.\n"
        return out
    }

    /// One row per cohort and ranked config: the first columns as they
    /// were, then the rest of a ranking row's JSON keys (added last, so
    /// that the columns before keep their places).
    public var csv: String {
        var t = ReportTable(headers: ["value", "rank"] + keys + ["f1", "precision", "recall", "alarmsPerHour", "fleetBest",
                                                                 "alarms", "stalls", "covered", "useful", "flapsPerHour",
                                                                 "medianLeadMs", "pareto", "flaps", "warmMs", "gridIndex"])
        for c in tuning.cohorts {
            for (i, r) in c.ranking.prefix(top).enumerated() {
                // alarms, stalls, covered, useful, …, alarmsPerHour, flapsPerHour, medianLeadMs
                let score = TuneReport.cells(r)
                t.add([c.value.map(ReportCell.text) ?? .empty(shown: ""), .int(i + 1)]
                      + keys.map { .literal(TuneReport.value(of: $0, in: r.config, bareStrings: true)) }
                      + [score[6], score[4], score[5], score[7], .literal(r.gridIndex == c.fleetBest.gridIndex ? "true" : "false")]
                      + score[0..<4] + score[8..<10]
                      + [.literal(r.pareto ? "true" : "false"), .int(r.score.flaps), .int(Int(r.score.warmMs)), .int(r.gridIndex)])
            }
        }
        return t.csv
    }
}

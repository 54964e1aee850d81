import Foundation
import MQABase
import MQAModel

/// A tuning sweep over part of the meetings, kept as additive counts so that
/// the parts of a fleet (e.g. the shards of a Spark job) can be merged into
/// exactly what one sweep over all of them gives: `mqa tune --partials`
/// prints one, `mqa tune --merge FILE…` adds them up and ranks the sum.
///
/// Why it is exact: every count of a config's score is a sum over clients,
/// and a client belongs to one meeting; lead times are kept as a histogram
/// at 1 ms, whose union is the multiset of all lead times. The ratios and
/// the median are then derived from the merged integers by the same code
/// as a single run (`TuningScore.init(_:)`), so the doubles are equal to
/// the bit, and the ranking and Pareto flags follow.
///
/// The grid travels verbatim inside each partial: a merge re-parses those
/// same bytes, so its configs are the single run's configs, not a
/// round-trip through printed numbers.
public struct TuningPartials: Sendable, Equatable {
    /// The `"mqaTunePartials"` version written under the defaults; a
    /// sweep on a `--config` base writes version 2 with its `"base"`, so
    /// that an mqa which knows no base refuses it rather than rank the
    /// grid on the defaults. A merge reads both.
    public static let version = 1
    static let versionWithBase = 2

    /// The grid file's text, byte for byte.
    public var grid: String
    public var target: Tier
    public var leadMs: Int64
    /// What the part held (summed by a merge; shown in md output).
    public var meetings: Int
    public var reports: Int
    public var connections: Int
    /// One entry per config, in grid order (`TuningGrid.configs()`).
    public var counts: [TuningCounts]
    /// The ids of the meetings counted, in UTF-8 byte order (`"meetingIds"`,
    /// `meetings` of them), so that a merge can refuse a meeting counted by
    /// two parts; `nil` for a file of an mqa that did not write them.
    public var meetingIDs: [String]?
    /// The config whose values the keys the grid leaves out take
    /// (`tune --config`); the defaults otherwise.
    public var base = TierConfig()

    public init(grid: String, target: Tier, leadMs: Int64, meetings: Int, reports: Int, connections: Int,
                counts: [TuningCounts], meetingIDs: [String]? = nil) {
        self.meetingIDs = meetingIDs.map(TuningPartials.byteOrder)
        self.grid = grid
        self.target = target
        self.leadMs = leadMs
        self.meetings = meetings
        self.reports = reports
        self.connections = connections
        self.counts = counts
    }

    /// Stalls are the same for every config (they do not depend on tiers).
    public var stalls: Int { counts.first?.stalls ?? 0 }

    /// The configs, re-parsed from `grid`.
    public func configs() throws(TierConfigError) -> [TierConfig] {
        try TuningGrid.parse(Data(grid.utf8)).configs(base: base)
    }

    /// The ranked results, as `Tuning.sweep` over all the meetings would give.
    public func results() throws -> [TuningResult] {
        let configs = try configs()
        guard configs.count == counts.count else {
            throw TuningPartialsError("the grid has \(configs.count) configs but the partials hold \(counts.count)")
        }
        return Tuning.rank(configs: configs, scores: counts.map(TuningScore.init))
    }

    /// The file `mqa tune --partials` writes. `config` is there for people
    /// reading the file; a merge goes by `grid`.
    public func json(configs: [TierConfig]) -> JSON {
        .object(headerMembers() + [("configs", .array(counts.indices.map { configJSON($0, configs: configs) }))])
    }

    /// Writes `json(configs:)` rendered, and a newline, a config at a time:
    /// the whole tree of a fleet's lead times took 250 MB for 12 MB of text.
    public func write(configs: [TierConfig], to sink: OutputSink) {
        var w = JSONStreamWriter(sink, pretty: false)
        w.beginObject()
        for (key, value) in headerMembers() { w.value(value, key: key) }
        w.beginArray(key: "configs")
        for i in counts.indices { w.value(configJSON(i, configs: configs)) }
        w.end()
        w.end()
        w.finish()
        sink.write("\n")
    }

    private func headerMembers() -> [(String, JSON)] {
        let based = !base.changedKeys.isEmpty
        let version = based ? TuningPartials.versionWithBase : TuningPartials.version
        return [
            ("schema", .string("mqa.tunePartials/\(version)")),
            ("mqaTunePartials", .int(Int64(version))),
        ] + base.jsonMember("base") + [
            ("target", .string(target.name)),
            ("leadMs", .int(leadMs)),
            ("meetings", .int(Int64(meetings))),
            ("reports", .int(Int64(reports))),
            ("connections", .int(Int64(connections))),
            ("meetingIds", meetingIDs.map { .array($0.map { .string($0) }) } ?? .null),
            ("grid", .string(grid)),
        ]
    }

    private func configJSON(_ i: Int, configs: [TierConfig]) -> JSON {
        let c = counts[i]
        precondition(!c.leadsCutToMedian, "partials of counts whose lead times were cut to the median")
        return .object([
            ("gridIndex", .int(Int64(i))),
            ("config", i < configs.count ? configs[i].json : .null),
            ("alarms", .int(Int64(c.alarms))),
            ("stalls", .int(Int64(c.stalls))),
            ("covered", .int(Int64(c.covered))),
            ("useful", .int(Int64(c.useful))),
            ("flaps", .int(Int64(c.flaps))),
            ("warmMs", .int(c.warmMs)),
            ("leads", .array(c.leads.map { .array([.int($0.ms), .int(Int64($0.count))]) })),
        ])
    }

    /// Reads a file written by `json(configs:)`.
    public static func parse(_ data: Data, source: String = "partials") throws -> TuningPartials {
        func fail(_ message: String) -> TuningPartialsError { TuningPartialsError("\(source): \(message)") }
        guard let object = (try? ExactJSONReader.parse(data, uniqueKeys: true)) as? [String: Any] else {
            throw fail("not a JSON object")
        }
        guard let v = integer(object["mqaTunePartials"]), (Int64(version)...Int64(versionWithBase)).contains(v),
              object["schema"] == nil || object["schema"] as? String == "mqa.tunePartials/\(v)" else {
            throw fail("not a tuning partials file of version \(version) or \(versionWithBase) (see 'mqa tune --partials')")
        }
        let base: TierConfig
        do { base = try TierConfig.carried(in: object, key: "base", version: v, withKey: Int64(versionWithBase)) } catch {
            throw fail(error.message)
        }
        guard let grid = object["grid"] as? String else { throw fail("missing \"grid\"") }
        guard let name = object["target"] as? String, let target = Tier(name: name), target.isKnown else {
            throw fail("missing or bad \"target\"")
        }
        guard let leadMs = integer(object["leadMs"]), leadMs >= 0 else { throw fail("missing or bad \"leadMs\"") }
        var sizes: [Int] = []
        for key in ["meetings", "reports", "connections"] {
            guard let n = integer(object[key]), n >= 0 else { throw fail("missing or bad \"\(key)\"") }
            sizes.append(Int(n))
        }
        // Optional (older files have none); when there, one per meeting.
        var ids: [String]?
        if let list = object["meetingIds"], !(list is NSNull) {
            guard let items = list as? [Any], items.count == sizes[0] else {
                throw fail("\"meetingIds\" must list the \(sizes[0]) meetings it says it holds")
            }
            var seen = Set<[UInt8]>()
            ids = try items.map { item in
                guard let id = item as? String, !id.isEmpty else { throw fail("\"meetingIds\" must hold meeting ids") }
                guard seen.insert(Array(id.utf8)).inserted else { throw fail("meeting '\(id)' is listed twice") }
                return id
            }
        }
        guard let entries = object["configs"] as? [Any] else { throw fail("missing \"configs\"") }
        var counts: [TuningCounts] = []
        for (i, item) in entries.enumerated() {
            guard let entry = item as? [String: Any], integer(entry["gridIndex"]) == Int64(i) else {
                throw fail("config \(i + 1): missing or out of order")
            }
            var n: [Int64] = []
            for key in ["alarms", "stalls", "covered", "useful", "flaps", "warmMs"] {
                guard let value = integer(entry[key]) else { throw fail("config \(i + 1): missing or bad \"\(key)\"") }
                n.append(value)
            }
            guard let rows = entry["leads"] as? [Any] else { throw fail("config \(i + 1): missing \"leads\"") }
            var bins: [TuningCounts.LeadBin] = []
            for row in rows {
                guard let pair = row as? [Any], pair.count == 2, let ms = integer(pair[0]), let k = integer(pair[1]) else {
                    throw fail("config \(i + 1): \"leads\" must hold [ms, count] pairs")
                }
                bins.append(TuningCounts.LeadBin(ms: ms, count: Int(k)))
            }
            guard let c = TuningCounts(alarms: Int(n[0]), stalls: Int(n[1]), covered: Int(n[2]), useful: Int(n[3]),
                                       flaps: Int(n[4]), warmMs: n[5], leads: bins) else {
                throw fail("config \(i + 1): counts no sweep gives (negative; useful > alarms, covered > stalls, "
                           + "more lead times than covered stalls, a negative lead), or \"leads\" not ascending with positive counts")
            }
            // Stalls do not depend on the config: every entry has the same.
            if let first = counts.first, first.stalls != c.stalls {
                throw fail("config \(i + 1): \(c.stalls) stalls, config 1 \(first.stalls) (stalls are the same for every config)")
            }
            counts.append(c)
        }
        var partials = TuningPartials(grid: grid, target: target, leadMs: leadMs, meetings: sizes[0], reports: sizes[1],
                                      connections: sizes[2], counts: counts, meetingIDs: ids)
        partials.base = base
        // The grid is what a merge ranks by: it must parse and give as many
        // configs as the file holds. (`config` is for people and is not read.)
        let configs: [TierConfig]
        do { configs = try partials.configs() } catch { throw fail("its grid is not valid: \(error)") }
        guard configs.count == counts.count else {
            throw fail("its grid has \(configs.count) configs but it holds \(counts.count)")
        }
        return partials
    }

    /// Adds parts up. They must come from the same grid text, target and
    /// lead, and cover disjoint meetings: a meeting in two parts is refused
    /// when the parts list their meetings (older files do not; then only
    /// the same part twice can be told).
    /// `names` (e.g. the files' paths) name the parts in errors.
    public static func merge(_ parts: [TuningPartials], names: [String]? = nil) throws -> TuningPartials {
        guard var total = parts.first else { throw TuningPartialsError("nothing to merge") }
        func part(_ i: Int) -> String { names.flatMap { i < $0.count ? "'\($0[i])'" : nil } ?? "part \(i + 1)" }
        var owner: [[UInt8]: Int] = [:]
        for (i, p) in parts.enumerated() {
            for id in p.meetingIDs ?? [] {
                if let j = owner.updateValue(i, forKey: Array(id.utf8)) {
                    throw TuningPartialsError("meeting '\(id)' is in \(part(j)) and \(part(i)): each meeting must be "
                                              + "in exactly one part, or it is counted twice")
                }
            }
        }
        for (i, p) in parts.enumerated().dropFirst() {
            guard p.grid == total.grid else { throw TuningPartialsError("\(part(i)) was made with another grid than \(part(0))") }
            guard p.base == total.base else {
                throw TuningPartialsError("\(part(i)) was made with another --config than \(part(0)): the keys its grid leaves "
                                          + "out differ, so its configs are not theirs")
            }
            guard p.target == total.target, p.leadMs == total.leadMs else {
                throw TuningPartialsError("\(part(i)) was made with another --target or --lead-ms than \(part(0))")
            }
            guard p.counts.count == total.counts.count else {
                throw TuningPartialsError("\(part(i)) holds \(p.counts.count) configs, \(part(0)) \(total.counts.count)")
            }
            // Without meeting ids an overlap cannot be told in general;
            // the same part twice (a copy, reformatted) can.
            if p.meetings > 0, let j = parts.prefix(i).firstIndex(where: { sameCounts($0, p) }) {
                throw TuningPartialsError("\(part(i)) holds the same counts as \(part(j)): the same meetings would be counted twice")
            }
            total.meetings += p.meetings
            total.reports += p.reports
            total.connections += p.connections
            // Sorted once below: re-sorting per part made a merge of many
            // parts quadratic.
            if let ids = p.meetingIDs, total.meetingIDs != nil {
                total.meetingIDs!.append(contentsOf: ids)
            } else {
                total.meetingIDs = nil
            }
            for k in total.counts.indices { total.counts[k] = total.counts[k] + p.counts[k] }
        }
        total.meetingIDs = total.meetingIDs.map(byteOrder)
        return total
    }

    /// Whether two parts hold the same counts: the same part twice, also
    /// when one of the two copies was written by an mqa that listed no
    /// meetings.
    static func sameCounts(_ a: TuningPartials, _ b: TuningPartials) -> Bool {
        var x = a, y = b
        if x.meetingIDs == nil || y.meetingIDs == nil { (x.meetingIDs, y.meetingIDs) = (nil, nil) }
        return x == y
    }

    /// Ids in UTF-8 byte order, the store's order of meetings.
    static func byteOrder(_ ids: [String]) -> [String] {
        ids.sorted { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }
    }

    /// A JSON integer (not a boolean, not a fraction) as Int64.
    static func integer(_ value: Any?) -> Int64? {
        guard let value, let d = JSONValue.number(value), d == d.rounded(), abs(d) < 9.0e15 else { return nil }
        if let n = value as? NSNumber { return n.int64Value }
        return Int64(d)
    }
}

/// A partials file that cannot be read or merged (exit 1).
public struct TuningPartialsError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

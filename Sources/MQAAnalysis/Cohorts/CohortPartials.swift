import Foundation
import MQABase

/// The cohort figures of part of a fleet (e.g. one shard of a Spark job),
/// kept so that the parts merge into exactly what one store of all the
/// meetings gives: `mqa report cohorts --partials` (or `report trends
/// --partials`) writes one, `report cohorts --merge FILE…` and `report
/// trends --merge FILE…` read them (`Docs/cohorts.md`).
///
/// Why it is exact: the intervals resample meetings, so the parts keep each
/// meeting apart, and within it, per profile (engine and client fields),
/// the additive sums, the participants' median MOS and a 1 ms histogram of
/// the first-frame times: all a cohort table reads from a participant
/// (`CohortGroups`). Every field's cohorts and every period's trend are
/// unions of profiles, so one file serves all of them. A meeting is in one
/// part (a shard holds meetings whole), so merging concatenates; the merged
/// meetings are sorted by id as the store lists them, which makes the
/// resamples draw the same meetings, whatever the order of the files.
public struct CohortPartials: Sendable, Equatable {
    /// The `"mqaCohortPartials"` version written. Version 2 added a
    /// profile's `"scope"` (a participant split by network: `whole` and
    /// `network`); version 3 splits by any client field (`whole` with
    /// `"splitBy"`, `piece` with `"pieceOf"`). A merge reads versions 1 and
    /// 2 too (version 1: every profile of scope `all`) and refuses any other.
    public static let version = 3
    /// Version 3 made under a `--config` other than the defaults, with
    /// that `"config"`: an mqa that reads no config refuses the file
    /// rather than merge its figures as the defaults'.
    static let versionWithConfig = 4
    static let readable: ClosedRange<Int64> = 1...4

    /// Meetings in id order (UTF-8 bytes, the store's `ORDER BY meeting`).
    public private(set) var meetings: [CohortMeetingSums]
    /// The file version read (`version` for partials made here). Version 1
    /// counted a participant whose network changed whole on its join's
    /// network, version 2 one that rejoined with another client field
    /// whole under its last value, so a merge refuses to mix versions.
    public private(set) var readVersion = Int64(CohortPartials.version)
    /// The tier config the low-tier times and MOS were made under
    /// (`--config`); a file without one was made under the defaults. Parts
    /// made under different configs do not merge: their time at poor/bad
    /// would add up to a figure of no config.
    public var config = TierConfig()
    /// Whether the profiles count video subscriptions and the ones never
    /// rendered (`subscriptions`, `neverRendered`): partials of an mqa
    /// before them lack both, and their never-rendered share is unknown.
    public var hasRenderCounts: Bool { renderCounts ?? true }
    /// As read: `nil` for a file with no profile (an empty shard), which
    /// merges with partials of either kind.
    private var renderCounts: Bool? = true

    /// Meetings in any order, each once.
    public init(_ meetings: [CohortMeetingSums]) throws {
        // By bytes, as the store keys meetings: Swift's String equality is
        // canonical, so "é" and "e\u{301}", two meetings of one store, were
        // one here and a store holding both could make no partials.
        var seen = Set<[UInt8]>()
        for m in meetings where !seen.insert(Array(m.meeting.utf8)).inserted {
            throw CohortPartialsError("meeting '\(m.meeting)' is in more than one part: each meeting must be in exactly one")
        }
        self.meetings = meetings.sorted { Array($0.meeting.utf8).lexicographicallyPrecedes($1.meeting.utf8) }
    }

    /// The participants summed per profile, meeting by meeting.
    public init(_ meetings: [CohortMeeting]) throws {
        try self.init(meetings.map(CohortMeetingSums.init))
    }

    /// The parts as one; a meeting in two parts is an error (it would be
    /// counted twice).
    /// `names`: the parts' files, to say which disagree.
    public static func merge(_ parts: [CohortPartials], names: [String] = []) throws -> CohortPartials {
        guard !parts.isEmpty else { throw CohortPartialsError("nothing to merge") }
        // Version 4 is version 3 with a config: the same counting.
        let versions = Set(parts.map { min($0.readVersion, Int64(CohortPartials.version)) })
        guard versions.count == 1 else {
            throw CohortPartialsError("partials of versions \(versions.sorted().map(String.init).joined(separator: " and ")) do not "
                + "merge: version 1 counted a participant whose network changed on its join's network, version 2 on each "
                + "network it used but one that rejoined with another platform, device or version under its last one, "
                + "version 3 under each value it had; make them all again with this mqa ('mqa report cohorts --partials')")
        }
        if let i = parts.firstIndex(where: { $0.config != parts[0].config }) {
            func name(_ k: Int) -> String { k < names.count ? "'\(names[k])'" : "part \(k + 1)" }
            throw CohortPartialsError("\(name(i)) and \(name(0)) were made under different tier configs: their time at "
                + "poor/bad and MOS do not add up; make them all again with the same --config (or none)")
        }
        // Counted in some parts only, the share would be of those parts'
        // subscriptions over all of them.
        let with = parts.firstIndex { $0.renderCounts == true }, without = parts.firstIndex { $0.renderCounts == false }
        if let with, let without {
            func name(_ k: Int) -> String { k < names.count ? "'\(names[k])'" : "part \(k + 1)" }
            throw CohortPartialsError("\(name(without)) has no never-rendered counts (made by an older mqa) and "
                + "\(name(with)) has: they do not merge; make them all again with this mqa ('mqa report cohorts --partials')")
        }
        var merged = try CohortPartials(parts.flatMap(\.meetings))
        merged.renderCounts = with != nil ? true : without != nil ? false : nil
        merged.readVersion = parts[0].readVersion
        merged.config = parts[0].config
        return merged
    }

    /// People, each once: a network's piece of a participant is not another one.
    public var participants: Int { meetings.reduce(0) { $0 + $1.people } }

    /// The file: per meeting its id, start and profiles; per profile the
    /// seven field values and the additive figures.
    public var json: JSON {
        let version = config.changedKeys.isEmpty ? CohortPartials.version : CohortPartials.versionWithConfig
        return .object([
            ("schema", .string("mqa.cohortPartials/\(version)")),
            ("mqaCohortPartials", .int(Int64(version))),
            ("meetings", .int(Int64(meetings.count))),
            ("participants", .int(Int64(participants))),
        ] + config.jsonMember("config") + [
            ("perMeeting", .array(meetings.map { m in
                .object([
                    ("meeting", .string(m.meeting)),
                    ("start", .optional(m.start)),
                    ("profiles", .array(m.profiles.map { CohortPartials.json($0, renderCounts: hasRenderCounts) })),
                ])
            })),
        ])
    }

    static func json(_ p: CohortProfileSums, renderCounts: Bool) -> JSON {
        var fields: [(String, JSON)] = CohortField.allCases.map { ($0.rawValue, .optional(p.profile.value($0))) }
        switch p.profile.scope {
        case .all: break
        case .whole(let split):
            fields += [("scope", .string("whole")), ("splitBy", .array(split.map { .string($0.rawValue) }))]
        case .piece(let field):
            fields += [("scope", .string("piece")), ("pieceOf", .string(field.rawValue))]
        }
        fields += [
            ("participants", .int(Int64(p.participants))),
            ("watchedMs", .int(p.watchedMs)),
            ("stalledMs", .int(p.stalledMs)),
            ("lowTierMs", .int(p.lowTierMs)),
            ("measuredMs", .int(p.measuredMs)),
            ("dropped", .int(Int64(p.dropped))),
        ]
        if renderCounts {
            fields += [("subscriptions", .int(p.subscriptions ?? 0)), ("neverRendered", .int(p.neverRendered ?? 0))]
        }
        fields += [
            // Full precision: a merge must see the doubles the store holds.
            ("mos", .array(p.mos.map { .double($0) })),
            ("firstFrameMs", .array(p.firstFrame.map { .array([.int($0.ms), .int(Int64($0.count))]) })),
        ]
        return .object(fields)
    }

    /// Reads a file written by `json`.
    public static func parse(_ data: Data, source: String = "partials") throws -> CohortPartials {
        func fail(_ message: String) -> CohortPartialsError { CohortPartialsError("\(source): \(message)") }
        guard let object = (try? ExactJSONReader.parse(data, uniqueKeys: true)) as? [String: Any] else {
            throw fail("not a JSON object")
        }
        guard let v = TuningPartials.integer(object["mqaCohortPartials"]), readable.contains(v) else {
            throw fail("not a cohort partials file of version \(readable.lowerBound) to \(readable.upperBound) "
                       + "(see 'mqa report cohorts --partials')")
        }
        guard let list = object["perMeeting"] as? [Any] else { throw fail("missing \"perMeeting\"") }
        var meetings: [CohortMeetingSums] = []
        var firstFrames = 0
        // Whether the profiles carry `subscriptions`; all or none of them.
        var renderCounts: Bool?
        for (i, item) in list.enumerated() {
            let at = "meeting \(i + 1)"
            guard let entry = item as? [String: Any], let id = entry["meeting"] as? String, !id.isEmpty else {
                throw fail("\(at): missing \"meeting\"")
            }
            var start: Int64?
            if let s = entry["start"], !(s is NSNull) {
                guard let n = TuningPartials.integer(s) else { throw fail("\(at): bad \"start\"") }
                start = n
            }
            guard let profiles = entry["profiles"] as? [Any] else { throw fail("\(at): missing \"profiles\"") }
            var sums: [CohortProfileSums] = []
            for (j, p) in profiles.enumerated() {
                let counted = (p as? [String: Any])?["subscriptions"] != nil
                if renderCounts == nil { renderCounts = counted }
                guard renderCounts == counted else {
                    throw fail("\(at), profile \(j + 1): \(counted ? "has" : "lacks") \"subscriptions\" where the profiles before "
                               + "\(counted ? "lack" : "have") it")
                }
                guard let p = p as? [String: Any], let s = profile(p, version: v) else {
                    throw fail("\(at), profile \(j + 1): missing or bad figures (counts must be whole, not negative, "
                               + "dropped and mos at most participants, neverRendered at most subscriptions, "
                               + "firstFrameMs ascending [ms, count] pairs, "
                               + (v < 3 ? "scope all, whole or network)"
                                  : "scope all, whole with splitBy client fields, or piece with pieceOf one)"))
                }
                sums.append(s)
            }
            meetings.append(CohortMeetingSums(meeting: id, start: start, profiles: sums))
            firstFrames += sums.reduce(0) { $0 + $1.firstFrame.reduce(0) { $0 + $1.count } }
            // More subscriptions than any store holds: refused before the
            // bootstrap's weighted counts could overflow.
            guard firstFrames <= Int(Int32.max) else { throw fail("more than \(Int32.max) first-frame times") }
        }
        if let n = TuningPartials.integer(object["meetings"]), n != Int64(meetings.count) {
            throw fail("it says \(n) meetings but lists \(meetings.count)")
        }
        let config: TierConfig
        do {
            config = try TierConfig.carried(in: object, key: "config", version: v, withKey: Int64(versionWithConfig))
        } catch { throw fail(error.message) }
        let partials: CohortPartials
        do {
            var read = try CohortPartials(meetings)
            read.readVersion = v
            read.config = config
            read.renderCounts = renderCounts
            partials = read
        } catch { throw fail("\(error)") }
        // Like `meetings`: the count it states is the one its lists give.
        if let n = TuningPartials.integer(object["participants"]), n != Int64(partials.participants) {
            throw fail("it says \(n) participants but its profiles hold \(partials.participants)")
        }
        return partials
    }

    private static func profile(_ p: [String: Any], version: Int64) -> CohortProfileSums? {
        var values: [String?] = []
        for field in CohortField.allCases {
            switch p[field.rawValue] {
            case nil, is NSNull: values.append(nil)
            case let s as String where !s.isEmpty: values.append(s)
            default: return nil
            }
        }
        var n: [Int64] = []
        for key in ["participants", "watchedMs", "stalledMs", "lowTierMs", "measuredMs", "dropped"] {
            guard let value = TuningPartials.integer(p[key]) else { return nil }
            n.append(value)
        }
        // Both or neither (an older mqa's partials: none counted).
        var rendered: [Int64] = []
        for key in ["subscriptions", "neverRendered"] where p["subscriptions"] != nil || p["neverRendered"] != nil {
            guard let value = TuningPartials.integer(p[key]) else { return nil }
            rendered.append(value)
        }
        guard let mosList = p["mos"] as? [Any], let bins = p["firstFrameMs"] as? [Any] else { return nil }
        var mos: [Double] = []
        for x in mosList {
            guard let d = JSONValue.number(x) else { return nil }
            mos.append(d)
        }
        var firstFrame: [CohortProfileSums.FirstFrameBin] = []
        for b in bins {
            guard let pair = b as? [Any], pair.count == 2, let ms = TuningPartials.integer(pair[0]), ms >= 0,
                  let k = TuningPartials.integer(pair[1]), k <= Int64(Int32.max) else { return nil }
            firstFrame.append(.init(ms: ms, count: Int(k)))
        }
        guard let scope = scope(p, version: version) else { return nil }
        guard let profile = CohortProfile(values: values, scope: scope) else { return nil }
        return CohortProfileSums(profile: profile, participants: n[0], watchedMs: n[1], stalledMs: n[2], lowTierMs: n[3],
                                 measuredMs: n[4], dropped: n[5], render: rendered.isEmpty ? nil : (rendered[0], rendered[1]),
                                 mos: mos, firstFrame: firstFrame)
    }
}

extension CohortPartials {
    /// A profile's scope: none is `all`. Up to version 2 `whole` and
    /// `network` meant split by `netType`; version 3 names the fields.
    fileprivate static func scope(_ p: [String: Any], version: Int64) -> CohortProfile.Scope? {
        guard let word = p["scope"] else {
            return p["splitBy"] == nil && p["pieceOf"] == nil ? .all : nil
        }
        func field(_ any: Any?) -> CohortField? {
            (any as? String).flatMap(CohortField.init(rawValue:)).flatMap { $0.changesInCall ? $0 : nil }
        }
        switch (word as? String, version) {
        case ("all", _): return p["splitBy"] == nil && p["pieceOf"] == nil ? .all : nil
        case ("whole", ..<3): return p["splitBy"] == nil && p["pieceOf"] == nil ? .whole(split: [.netType]) : nil
        case ("network", ..<3): return p["splitBy"] == nil && p["pieceOf"] == nil ? .piece(of: .netType) : nil
        case ("whole", 3...):
            guard p["pieceOf"] == nil, let list = p["splitBy"] as? [Any], !list.isEmpty else { return nil }
            let fields = list.compactMap(field)
            // Named once each, in the fields' order, as written.
            let ordered = CohortField.allCases.filter(fields.contains)
            guard fields.count == list.count, fields == ordered else { return nil }
            return .whole(split: fields)
        case ("piece", 3...):
            guard p["splitBy"] == nil, let f = field(p["pieceOf"]) else { return nil }
            return .piece(of: f)
        default: return nil
        }
    }
}

/// A cohort partials file that cannot be read or merged (exit 1).
public struct CohortPartialsError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

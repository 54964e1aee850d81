import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

// The context events in words, shared by the Markdown and HTML forms: what
// each participant's devices and audio did, and which of those things sit
// next to a stall or a stretch of low tier.
extension MeetingReport {
    /// One line of a participant's context timeline.
    struct ContextRow {
        var ts: Int64
        var what: String
    }

    /// A stall or a low-tier stretch with the context items near it.
    struct ContextNote {
        /// "alice, stall of bob-cam at +1:02.300 (4.2 s)".
        var subject: String
        /// "audio route changed to bluetooth 2 s before; reason newDeviceAvailable".
        var explanations: [String]
    }

    /// When a participant's first connection began, to mark set-up done before it.
    func firstJoin(_ uid: String) -> Int64? {
        analysis.connections.first { $0.uid == uid }?.start
    }

    /// A participant's context items in time order, in words.
    func contextRows(_ p: ParticipantContext) -> [ContextRow] {
        let joined = firstJoin(p.uid)
        return p.items.map { item in
            var what = ContextWords.describe(item, relativeTo: nil)
            if case .device = item, let joined, item.ts < joined { what += " (before joining)" }
            return ContextRow(ts: item.ts, what: what)
        }
    }

    /// Every stall and low-tier stretch that has context items near it.
    var contextNotes: [ContextNote] {
        let t0 = timeRange.start
        var notes: [ContextNote] = []
        for s in analysis.subscriptions {
            for x in s.stalls {
                var words: [String] = []
                if let c = context.participant(s.subscriber) {
                    words += c.items(near: x.start, x.end).filter { ContextWords.explains($0, publisher: false) }
                        .map { ContextWords.describe($0, relativeTo: (x.start, x.end)) }
                }
                if s.publisher != s.subscriber, let c = context.participant(s.publisher) {
                    words += c.items(near: x.start, x.end).filter { ContextWords.explains($0, publisher: true) }.map {
                        "publisher \(s.publisher): " + ContextWords.describe($0, relativeTo: (x.start, x.end))
                    }
                }
                guard !words.isEmpty else { continue }
                notes.append(ContextNote(
                    subject: "\(s.subscriber), stall of \(s.track) at \(ReportText.offset(x.start, from: t0)) (\(ReportText.duration(x.durationMs)))",
                    explanations: words))
            }
        }
        for p in context.participants {
            for stretch in lowTierStretches(p.uid) {
                let words = p.items(near: stretch.from, stretch.to).filter { ContextWords.explains($0, publisher: false) }.map { ContextWords.describe($0, relativeTo: (stretch.from, stretch.to)) }
                guard !words.isEmpty else { continue }
                notes.append(ContextNote(
                    subject: "\(p.uid), \(stretch.tiers) tier from \(ReportText.offset(stretch.from, from: t0)) to \(ReportText.offset(stretch.to, from: t0))",
                    explanations: words))
            }
        }
        return notes
    }

    /// Runs of adjacent holds at `poor` or `bad`.
    func lowTierStretches(_ uid: String) -> [(from: Int64, to: Int64, tiers: String)] {
        guard let timeline = analysis.timelines[uid] else { return [] }
        var out: [(from: Int64, to: Int64, tiers: String)] = []
        var seen: Set<Tier> = []
        for h in timeline.holds where h.tier == .poor || h.tier == .bad {
            if let last = out.last, last.to == h.from {
                out[out.count - 1].to = h.to
            } else {
                seen = []
                out.append((h.from, h.to, ""))
            }
            seen.insert(h.tier)
            out[out.count - 1].tiers = seen.count == 2 ? "poor/bad" : h.tier.name
        }
        return out
    }
}

/// Context items in words.
enum ContextWords {
    /// Whether an item can bear on trouble next to it. A participant's own
    /// mic toggles happen all the time and explain no stall; a host's
    /// action, a route change, an interruption or a device change may. For
    /// a video track's publisher only what touches the camera counts.
    static func explains(_ item: ParticipantContext.Item, publisher: Bool) -> Bool {
        switch item {
        case .media(let m): return m.byAdmin && (!publisher || m.media == "camera")
        case .device(let d): return !publisher || d.kind == "camera"
        case .route, .interruption: return !publisher
        // A new network bears on what the client receives and on what it sends.
        case .network: return true
        }
    }

    /// The item, placed against a window when given ("2 s before", "during
    /// it", "5 s into it").
    static func describe(_ item: ParticipantContext.Item, relativeTo window: (from: Int64, to: Int64)?) -> String {
        func when(_ ts: Int64) -> String {
            guard let window else { return "" }
            if ts < window.from { return " " + ReportText.duration(window.from - ts) + " before" }
            if ts == window.from { return " at the same moment" }
            return " " + ReportText.duration(ts - window.from) + " into it"
        }
        switch item {
        case .route(let r):
            return "audio route changed to \(r.route)\(when(r.ts)); reason \(r.reason)"
        case .interruption(let x):
            var s = "audio interrupted" + when(x.startTs)
            if let end = x.endTs { s += "; recovered after " + ReportText.duration(end - x.startTs) } else { s += "; never recovered" }
            return s
        case .device(let d):
            let name = d.device.map { " \"\($0)\"" } ?? ""
            switch d.change {
            case "default": return "default \(d.kind) set to\(name.isEmpty ? " another device" : name)\(when(d.ts))"
            default: return "\(d.kind)\(name) \(d.change)\(when(d.ts))"
            }
        case .network(let n):
            return "network changed to \(n.netType)" + (n.detail.map { " (\($0))" } ?? "") + when(n.ts)
        case .media(let m):
            var s = "\(m.media) turned \(m.on ? "on" : "off")"
            if m.byAdmin { s += " by the host" + (m.opUid.map { " (\($0))" } ?? "") }
            return s + when(m.ts)
        }
    }
}

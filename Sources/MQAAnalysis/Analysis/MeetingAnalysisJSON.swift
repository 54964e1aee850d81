import MQABase
import MQAModel

// The JSON shapes of `Docs/cli.md` for what the tier engine owns.

extension MeetingAnalysis {
    /// `mqa tiers --format json`: `{"meeting", "config", "connections"}`,
    /// optionally only the connections of `uid`.
    public func tiersJSON(uid: String? = nil) -> JSON {
        .object(tiersJSONHead + [("connections", .array(connections.filter { uid == nil || $0.uid == uid }.map(\.json)))])
    }

    /// The members of `tiersJSON` before `connections`.
    public var tiersJSONHead: [(String, JSON)] {
        // A CDN meeting says so, as the meeting report does: its
        // connections' time is all `unknown` for want of a feed, not of
        // warm reports.
        [
            ("meeting", .string(meeting)),
            ("engine", .optional(engine)),
            ("qualityData", .bool(!isCDN)),
            ("notice", isCDN ? .string("no quality data (CDN engine)") : .null),
            ("config", config.json),
        ]
    }

    /// The `participants` array of `mqa report meeting --format json`.
    public var participantsJSON: JSON { .array(participants.map(\.json)) }

    /// The `tracks` array of `mqa report meeting --format json`.
    public var tracksJSON: JSON { .array(subscriptions.map(\.json)) }

    /// The `issues` array of `mqa report meeting --format json`.
    public var issuesJSON: JSON { .array(issues.map(\.json)) }
}

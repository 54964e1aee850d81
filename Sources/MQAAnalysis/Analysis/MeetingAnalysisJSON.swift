import MQABase
import MQAModel

// The JSON shapes of `Docs/cli.md` for what the tier engine owns.

extension MeetingAnalysis {
    /// `mqa tiers --format json`: `{"meeting", "config", "connections"}`,
    /// optionally only the connections of `uid`.
    public func tiersJSON(uid: String? = nil) -> JSON {
        let selected = connections.filter { uid == nil || $0.uid == uid }
        return .object([
            ("meeting", .string(meeting)),
            ("config", config.json),
            ("connections", .array(selected.map(\.json))),
        ])
    }

    /// The `participants` array of `mqa report meeting --format json`.
    public var participantsJSON: JSON { .array(participants.map(\.json)) }

    /// The `tracks` array of `mqa report meeting --format json`.
    public var tracksJSON: JSON { .array(subscriptions.map(\.json)) }

    /// The `issues` array of `mqa report meeting --format json`.
    public var issuesJSON: JSON { .array(issues.map(\.json)) }
}

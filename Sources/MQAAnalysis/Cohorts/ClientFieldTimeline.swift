import MQABase
import MQAModel

/// Which value of one client field (event-log.md 1.2) a client had over
/// time: each `meeting_join` sets the field as `ClientInfo` reads joins (a
/// join that leaves it out keeps the value before; one that names another
/// platform is another client, whose unnamed fields are unknown), and for
/// `netType` so does each `network_change`. "The last value before a
/// report holds", so a figure measured at `t` belongs to the last mark at
/// or before `t`: a client that rejoins from another device, or after an
/// app update, measured its earlier figures on the earlier one. Before the
/// first mark the value is what the client joined with (the joins of its
/// first millisecond, the last word holding), unknown when it begins with
/// a `network_change`. A first join that names no value leaves it unknown
/// until one does: an app of an older SDK says nothing of its version, and
/// the version an update names later did not measure what came before.
public struct ClientFieldTimeline: Sendable, Equatable {
    /// One mark: a join or a network change, with the value from it on
    /// (`nil`: unknown from it on).
    public struct Mark: Sendable, Equatable {
        public var ts: Int64
        public var value: String?
        public var isJoin: Bool

        public init(ts: Int64, value: String?, isJoin: Bool) {
            self.ts = ts
            self.value = value
            self.isJoin = isJoin
        }
    }

    /// Stretch `i` holds `values[i]` over `[starts[i], starts[i + 1])`;
    /// `starts[0]` is `Int64.min`, neighbours differ in value.
    public private(set) var starts: [Int64]
    public private(set) var values: [String?]

    /// From a client's marks in any order: equal times keep joins first,
    /// then the order given (a join and a change of one millisecond: the
    /// change is the later word).
    public init(marks: [Mark]) {
        let ordered = ClientFieldTimeline.ordered(marks)
        // What the client joined with: the joins of its first millisecond
        // are one moment, the last word holding (two of them were a change
        // from nothing, and a reanalysis for nothing).
        var initial: String?
        var k = 0
        if let first = ordered.first, first.isJoin {
            while k < ordered.count, ordered[k].isJoin, ordered[k].ts == first.ts {
                initial = ordered[k].value
                k += 1
            }
        }
        starts = [.min]
        values = [initial]
        for m in ordered[k...] where m.value != values[values.count - 1] {
            if starts[starts.count - 1] == m.ts {
                // Two marks of one millisecond: the later one holds from it.
                values[values.count - 1] = m.value
                if values.count > 1, values[values.count - 2] == m.value {
                    starts.removeLast()
                    values.removeLast()
                }
            } else {
                starts.append(m.ts)
                values.append(m.value)
            }
        }
    }

    /// The timeline of `field` in a client's log (`engine` is the
    /// meeting's: it never changes).
    public init(_ client: ClientLog, field: CohortField) {
        self.init(marks: ClientFieldTimeline.marks(client, field: field))
    }

    /// A client's marks of `field` in time order: its joins (with the
    /// value each names, if any) and, for `netType`, its `network_change`
    /// events (also the meeting report's network path).
    static func marks(_ client: ClientLog, field: CohortField) -> [Mark] {
        marks(field: field, joins: client.events.filter { $0.payload.kind == .meetingJoin }.map { ($0.ts, $0.payload) },
              networkChanges: client.context.filter { $0.payload.kind == .networkChange }.map { ($0.ts, $0.payload) })
    }

    /// The marks of `field` from a client's joins and `network_change`
    /// events (their payloads, each list in the client's order), as the
    /// store reads them without the whole log.
    public static func marks(field: CohortField, joins: [(ts: Int64, payload: EventPayload)],
                             networkChanges: [(ts: Int64, payload: EventPayload)]) -> [Mark] {
        guard field.changesInCall else { return [] }
        // In time order, each mark with the value from it on: the joins
        // read as `ClientInfo` reads them, a network change setting netType.
        var raw = joins.map { Mark(ts: $0.ts, value: nil, isJoin: true) }
        var payloads = joins.map(\.payload)
        if field == .netType {
            for c in networkChanges {
                guard let v = c.payload.string("netType") else { continue }
                raw.append(Mark(ts: c.ts, value: v, isJoin: false))
                payloads.append(c.payload)
            }
        }
        var state = ParticipantContext.ClientInfo()
        return orderedIndices(raw).map { i in
            var m = raw[i]
            if m.isJoin { state.update(from: payloads[i]) } else { state.netType = m.value }
            m.value = state[field]
            return m
        }
    }

    /// By time; at one millisecond joins first, then in the order given.
    static func ordered(_ marks: [Mark]) -> [Mark] {
        orderedIndices(marks).map { marks[$0] }
    }

    /// The indices of `ordered`.
    static func orderedIndices(_ marks: [Mark]) -> [Int] {
        marks.indices.sorted { a, b in
            (marks[a].ts, marks[a].isJoin ? 0 : 1, a) < (marks[b].ts, marks[b].isJoin ? 0 : 1, b)
        }
    }

    /// Whether more than one value holds at some time: only then does a
    /// participant's figures need splitting.
    public var changes: Bool { values.count > 1 }

    /// The stretch holding instant `t`.
    func stretch(at t: Int64) -> Int {
        max(0, starts.partitionPoint { $0 > t } - 1)
    }

    /// Where stretch `i` ends (`Int64.max` for the last).
    func end(of i: Int) -> Int64 { i + 1 < starts.count ? starts[i + 1] : .max }

    /// Calls `body(stretch, ms)` for each stretch that `[from, to)` overlaps.
    func overlaps(from: Int64, to: Int64, _ body: (Int, Int64) -> Void) {
        guard to > from else { return }
        var i = stretch(at: from)
        while i < starts.count {
            let a = max(from, starts[i]), b = min(to, end(of: i))
            if b > a { body(i, b - a) }
            if end(of: i) >= to { break }
            i += 1
        }
    }
}

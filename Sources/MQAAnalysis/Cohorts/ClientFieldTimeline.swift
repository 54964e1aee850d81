import MQABase
import MQAModel

/// Which value of one client field (event-log.md 1.2) a client had over
/// time: each `meeting_join` that names the field starts a stretch of its
/// value, and for `netType` so does each `network_change`. "The last value
/// before a report holds", so a figure measured at `t` belongs to the last
/// mark at or before `t`: a client that rejoins from another device, or
/// after an app update, measured its earlier figures on the earlier one.
/// Before the first mark the value is the first mark's when that mark is a
/// join (what the client joined with, as `ClientInfo` reads it), and
/// unknown when it is a `network_change` (nothing said which network came
/// before it). A join that leaves the field out changes nothing, but a
/// first join without it makes the value unknown until one names it: an
/// app of an older SDK says nothing of its version, and the version its
/// update names later did not measure the earlier figures.
public struct ClientFieldTimeline: Sendable, Equatable {
    /// One mark: a join (`value` nil when it leaves the field out), or a
    /// network change.
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
        let initial: String? = ordered.first.flatMap { $0.isJoin ? $0.value : nil }
        starts = [.min]
        values = [initial]
        // A mark without a value only ever sets the initial value.
        for m in ordered where m.value != nil && m.value != values[values.count - 1] {
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
        var marks = joins.map { Mark(ts: $0.ts, value: $0.payload.string(field.rawValue), isJoin: true) }
        if field == .netType {
            for c in networkChanges {
                if let v = c.payload.string("netType") { marks.append(Mark(ts: c.ts, value: v, isJoin: false)) }
            }
        }
        return ordered(marks)
    }

    /// By time; at one millisecond joins first, then in the order given.
    static func ordered(_ marks: [Mark]) -> [Mark] {
        marks.enumerated().sorted { a, b in
            (a.element.ts, a.element.isJoin ? 0 : 1, a.offset) < (b.element.ts, b.element.isJoin ? 0 : 1, b.offset)
        }.map(\.element)
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

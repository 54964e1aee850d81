import Foundation
import MQABase
import MQAModel

/// A connection context as one event-log line, so that `mqa export` of a
/// store made from stats dumps ingests back into the same store.
///
/// The line is mqa's own, outside the event-log contract: another pipeline
/// counts it as an unknown event (ignored), and mqa's ingest reads it into
/// the `connection_context` table and counts it with the ignored lines too,
/// so that the counts of an export's re-ingest are those of its events.
///
///     {"ts":…,"event":"mqa_connection_context","meeting":…,"uid":…,
///      "connection":"PC_0","paths":["host/udp"],"limitedMs":{"cpu":1200},"concealment":0.0123,
///      "knownAs":["5f0c…","remote-1234"],"senderTracks":{"a5ef…":"0060…"},
///      "received":{"peers":["5f0c…"],"spans":[[…,…]],"lossRuns":[[…,…,19.23]]}}
extension ConnectionContext {
    /// The line's `event`.
    public static let eventName = Array("mqa_connection_context".utf8)

    /// A bad context line: why, naming the field.
    public struct LineError: Error {
        public var reason: String
    }

    /// The line for this context at `ts` (NDJSON, `\n` included).
    /// `concealment` is written in full, so that it reads back the same.
    public func line(ts: Int64) -> String {
        var s = "{\"ts\":\(ts),\"event\":\"mqa_connection_context\",\"meeting\":"
        JSON.quote(meeting ?? "", into: &s)
        s += ",\"uid\":"
        JSON.quote(uid ?? "", into: &s)
        s += ",\"connection\":"
        JSON.quote(connection, into: &s)
        s += ",\"paths\":" + JSON.stringArray(paths)
        let limits = ConnectionContext.limitReasons.compactMap { k in limitedMs[k].map { "\"\(k)\":\($0)" } }
        s += ",\"limitedMs\":{" + limits.joined(separator: ",") + "}"
        s += ",\"concealment\":" + (concealment.map { JSON.number($0) } ?? "null")
        // Only where the dump gave names: lines of earlier versions stay as they were.
        if !knownAs.isEmpty { s += ",\"knownAs\":" + JSON.stringArray(knownAs) }
        ConnectionContext.appendMap("senderTracks", senderTracks, to: &s)
        ConnectionContext.appendMap("senderPublishers", senderPublishers, to: &s)
        if let r = received { s += ",\"received\":" + ConnectionContext.receivedJSON(r) }
        return s + "}\n"
    }

    /// `,"key":{…}` in key order; nothing for an empty map.
    private static func appendMap(_ key: String, _ map: [String: String], to s: inout String) {
        guard !map.isEmpty else { return }
        s += ",\"" + key + "\":{"
        for (i, (local, sender)) in map.sorted(by: { $0.key < $1.key }).enumerated() {
            if i > 0 { s += "," }
            JSON.quote(local, into: &s)
            s += ":"
            JSON.quote(sender, into: &s)
        }
        s += "}"
    }

    /// Reads a context line whose envelope the line parser has checked
    /// (`meeting` and `uid` decoded). Every number is read exactly.
    public static func parseLine(_ line: UnsafeBufferPointer<UInt8>, meeting: [UInt8], uid: [UInt8])
        -> Result<ConnectionContext, LineError> {
        let fail = { (reason: String) in Result<ConnectionContext, LineError>.failure(LineError(reason: "mqa_connection_context: " + reason)) }
        let parsed: Any
        do { parsed = try ExactJSONReader.parse(Data(buffer: line)) } catch { return fail("not valid JSON: \(error)") }
        guard let object = parsed as? [String: Any] else { return fail("not a JSON object") }
        guard let connection = object["connection"] as? String, !connection.isEmpty else {
            return fail("connection: must be a non-empty string")
        }
        var context = ConnectionContext(file: "", connection: connection)
        context.meeting = String(decoding: meeting, as: UTF8.self)
        context.uid = String(decoding: uid, as: UTF8.self)
        guard let paths = object["paths"] as? [Any], paths.allSatisfy({ $0 is String }) else {
            return fail("paths: must be an array of strings")
        }
        context.paths = paths.map { $0 as! String }
        guard let limits = object["limitedMs"] as? [String: Any] else { return fail("limitedMs: must be an object") }
        for (reason, value) in limits {
            guard limitReasons.contains(reason) else {
                return fail("limitedMs: unknown reason '\(reason)' (one of \(limitReasons.joined(separator: ", ")))")
            }
            guard let n = number(value), n >= 0, n == n.rounded(), n < 9.0e15 else {
                return fail("limitedMs.\(reason): must be a whole number of ms, at least 0")
            }
            context.limitedMs[reason] = Int64(n)
        }
        if let value = object["concealment"], !(value is NSNull) {
            guard let n = number(value), n >= 0, n <= 1 else { return fail("concealment: must be a number from 0 to 1, or null") }
            context.concealment = n
        }
        if let value = object["knownAs"] {
            guard let names = value as? [Any], names.allSatisfy({ ($0 as? String).map { !$0.isEmpty } ?? false }) else {
                return fail("knownAs: must be an array of non-empty strings")
            }
            context.knownAs = names.map { $0 as! String }
        }
        for (key, what) in [("senderTracks", "track ids"), ("senderPublishers", "publisher names")] {
            guard let value = object[key] else { continue }
            // Values become events' track and publisher fields: 1–256 characters.
            guard let map = value as? [String: Any],
                  map.allSatisfy({ !$0.key.isEmpty && (($0.value as? String).map { (1...256).contains($0.unicodeScalars.count) } ?? false) })
            else {
                return fail("\(key): must be an object of non-empty \(what) (at most 256 characters)")
            }
            let names = map.mapValues { $0 as! String }
            if key == "senderTracks" { context.senderTracks = names } else { context.senderPublishers = names }
        }
        if let value = object["received"] {
            switch received(value) {
            case .success(let r): context.received = r
            case .failure(let e): return fail("received" + e.reason)
            }
        }
        return .success(context)
    }

    /// The `received` object, as the export's line and the store's
    /// `connection_received` row hold it:
    /// `{"peers":[…],"spans":[[start,end],…],"lossRuns":[[start,end,peak%],…]}`,
    /// and `"rttRuns":[[start,end,peak ms],…]` before the `}` when there are
    /// any (lines written before RTT runs were kept read the same).
    public static func receivedJSON(_ r: ReceivedLoss) -> String {
        func runs(_ list: [ReceivedLoss.Run]) -> String {
            "[" + list.map { "[\($0.start),\($0.end),\(JSON.number($0.peak))]" }.joined(separator: ",") + "]"
        }
        return "{\"peers\":" + JSON.stringArray(r.peers)
            + ",\"spans\":[" + r.spans.map { "[\($0.start),\($0.end)]" }.joined(separator: ",") + "]"
            + ",\"lossRuns\":" + runs(r.lossRuns) + (r.rttRuns.isEmpty ? "" : ",\"rttRuns\":" + runs(r.rttRuns)) + "}"
    }

    /// Reads a `received` object (parsed JSON), holding it to what the
    /// importer writes: no other keys; unique peer names of 1–256
    /// characters; spans and runs of whole ms between 2000 and 9999, each
    /// starting more than `ReceivedLoss.bridgedGapMs` after the one before
    /// ends (closer ones are one), the runs inside the spans; loss peaks above the lossy line
    /// (`ReceivedLoss.lossyPct`) and at most 100, RTT peaks whole ms above
    /// the slow line (`ReceivedLoss.slowRttMs`) and under 10^15. The error
    /// names the bad member, after the `received` it is in.
    static func received(_ value: Any) -> Result<ReceivedLoss, LineError> {
        let fail = { (reason: String) in Result<ReceivedLoss, LineError>.failure(LineError(reason: reason)) }
        guard let object = value as? [String: Any] else { return fail(": must be an object") }
        if let key = object.keys.sorted().first(where: { !["peers", "spans", "lossRuns", "rttRuns"].contains($0) }) {
            return fail(": unknown key \"\(key)\" (peers, spans, lossRuns, rttRuns)")
        }
        let gap = ReceivedLoss.bridgedGapMs
        guard let list = object["peers"] as? [Any],
              list.allSatisfy({ ($0 as? String).map { (1...256).contains($0.unicodeScalars.count) } ?? false }),
              Set(list.map { $0 as! String }).count == list.count
        else { return fail(".peers: must be an array of distinct names of 1 to 256 characters") }
        /// `[start, end, …]` of `count` members, whole ms in range, start ≤ end.
        func times(_ item: Any, _ count: Int) -> (start: Int64, end: Int64, rest: [Any])? {
            guard let list = item as? [Any], list.count == count, let start = ms(list[0]), let end = ms(list[1]), start <= end,
                  start >= LineParser.earliestTs, end <= latestMs
            else { return nil }
            return (start, end, Array(list.dropFirst(2)))
        }
        var spans: [ReceivedLoss.Span] = []
        guard let spanList = object["spans"] as? [Any], !spanList.isEmpty else { return fail(".spans: must be a non-empty array") }
        for (k, item) in spanList.enumerated() {
            guard let span = times(item, 2), spans.last.map({ span.start - $0.end > gap }) ?? true else {
                return fail(".spans[\(k)]: must be [start ms, end ms] with start ≤ end, more than \(gap / 1000) s after the span before, from 2000 to 9999")
            }
            spans.append(ReceivedLoss.Span(start: span.start, end: span.end))
        }
        /// The runs under `key`, each peak held to `valid`.
        func runs(_ key: String, _ list: [Any], _ peak: String, _ rule: String,
                  _ valid: (Double) -> Bool) throws(LineError) -> [ReceivedLoss.Run] {
            var runs: [ReceivedLoss.Run] = []
            for (k, item) in list.enumerated() {
                guard let run = times(item, 3), let value = number(run.rest[0]), valid(value),
                      runs.last.map({ run.start - $0.end > gap }) ?? true,
                      run.start >= spans.first!.start, run.end <= spans.last!.end
                else {
                    throw LineError(reason: ".\(key)[\(k)]: must be [start ms, end ms, \(peak)] with start ≤ end, "
                                    + "more than \(gap / 1000) s after the run before, inside the spans, and a peak \(rule)")
                }
                runs.append(ReceivedLoss.Run(start: run.start, end: run.end, peak: value))
            }
            return runs
        }
        guard let lossList = object["lossRuns"] as? [Any] else { return fail(".lossRuns: must be an array") }
        var rttList: [Any] = []
        if let value = object["rttRuns"] {
            guard let list = value as? [Any] else { return fail(".rttRuns: must be an array") }
            rttList = list
        }
        let lossRuns: [ReceivedLoss.Run], rttRuns: [ReceivedLoss.Run]
        do throws(LineError) {
            lossRuns = try runs("lossRuns", lossList, "peak %", "above \(JSON.number(ReceivedLoss.lossyPct)) and at most 100") {
                $0 > ReceivedLoss.lossyPct && $0 <= 100
            }
            rttRuns = try runs("rttRuns", rttList, "peak ms", "of whole ms above \(JSON.number(ReceivedLoss.slowRttMs)) and under 10^15") {
                $0 > ReceivedLoss.slowRttMs && $0 < 1e15 && $0 == $0.rounded()
            }
        } catch {
            return .failure(error)
        }
        return .success(ReceivedLoss(peers: list.map { $0 as! String }, spans: spans, lossRuns: lossRuns, rttRuns: rttRuns))
    }

    /// 9999-12-31T23:59:59.999Z: no later time is one.
    private static let latestMs: Int64 = 253_402_300_799_999

    /// A whole number of ms; nil for anything else.
    private static func ms(_ value: Any) -> Int64? {
        guard let n = number(value), n == n.rounded(), abs(n) < 9.0e15 else { return nil }
        return Int64(n)
    }

    /// A JSON number's value; nil for anything else, `true`/`false` included
    /// (the reader gives those as numbers of type `c`).
    private static func number(_ value: Any) -> Double? {
        guard let n = value as? NSNumber, String(cString: n.objCType) != "c" else { return nil }
        return n.doubleValue
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import MQABase
import MQAModel
import MQAStore

/// Reads a chrome://webrtc-internals dump: one JSON object whose
/// `PeerConnections` map connections to `stats` series keyed
/// `"<reportId>-<property>"`, each with its values as a JSON string.
///
/// The document is read a piece at a time (`DocumentReader`), one
/// connection's object held at once and walked in place with the event
/// log's scanner; only the series the mapping reads are decoded.
struct WebRTCInternalsImporter {
    let context: ImportContext
    private let scanner = JSONWalker()

    init(context: ImportContext) { self.context = context }

    /// One report's series, as the dump holds them.
    struct Series {
        var type = ""
        var values = [[StatsValue?]?](repeating: nil, count: StatsProperty.allCases.count)
    }

    /// Converts connections on a second thread while the next one is
    /// scanned: the two halves cost about the same, and the event log's
    /// ingest uses two threads too. At most two connections wait, and they
    /// are converted (and handed on) in the dump's order.
    ///
    /// `@unchecked Sendable`: `conversion` and `error` are touched only on
    /// the serial queue, and by the caller after `drain` has waited for it.
    final class Pipeline: @unchecked Sendable {
        private var results: [ConnectionResult] = []
        private var error: Error?
        private let queue = DispatchQueue(label: "mqa.import.connections")
        private let slots = DispatchSemaphore(value: 2)

        func submit(_ work: @escaping (inout [ConnectionResult]) throws -> Void) {
            slots.wait()
            // The work reads the caller's state (the converter, the emit
            // callback), which the caller leaves alone until `drain`: one
            // thread at a time touches it, in submission order.
            nonisolated(unsafe) let work = work
            queue.async { [self] in
                defer { slots.signal() }
                guard error == nil else { return }
                do { try work(&results) } catch { self.error = error }
            }
        }

        /// Waits for the submitted work (also before a throw leaves convert:
        /// the work calls back into the caller's state).
        func drain() { queue.sync {} }

        func result() throws -> [ConnectionResult] {
            drain()
            if let error { throw error }
            return results
        }
    }

    /// Converts a document held whole (the tests' way in; an ingest feeds
    /// it as it reads it, `DocumentReader`).
    func convert(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Conversion {
        let reader = DocumentReader(self)
        try reader.feed(bytes)
        return try reader.finish()
    }

    /// Reads one connection's object at `p` and converts it.
    func connection(
        _ key: String, _ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ pipeline: Pipeline, _ identity: inout DumpIdentity
    ) throws {
        guard s[p] == UInt8(ascii: "{") else {
            try scanner.skipValue(s, &p, depth: 2)
            pipeline.submit { results in
                results.append(ConnectionResult(converter: ConnectionConverter(connection: key), meta: ConnectionMeta(), emptyReason: "not an object"))
            }
            return
        }
        var reports: [String: Int] = [:]
        var series: [(id: String, series: Series)] = []
        var legacy = false
        var sawStats = false
        var meta = ConnectionMeta()
        try scanner.forEachMember(s, &p, depth: 2) { ks, ke, kesc, q in
            let name = JSONScanner.stringBytes(s, ks, ke, kesc)
            if name == Array("updateLog".utf8), s[q] == UInt8(ascii: "[") {
                try updateLog(s, &q, &meta)
                return
            }
            if name == Array("url".utf8) || name == Array("constraints".utf8) || name == Array("rtcConfiguration".utf8),
                case .string(let a, let b, let esc) = try scanner.scanScalar(s, &q, depth: 3)
            {
                let text = String(decoding: JSONScanner.stringBytes(s, a, b, esc), as: UTF8.self)
                if name == Array("url".utf8) {
                    identity.note(url: text)
                } else if name == Array("constraints".utf8) {
                    meta.p2p = ConnectionMeta.p2pFlag(inConstraintsText: text)
                    if meta.p2p != nil { meta.mediaSetUp = true }
                } else {
                    meta.stunOnly = text.contains("stun:") && !text.contains("turn:") && !text.contains("turns:")
                }
                return
            }
            guard !kesc, ke - ks == 5, name == Array("stats".utf8), s[q] == UInt8(ascii: "{") else {
                try scanner.skipValue(s, &q, depth: 3)
                return
            }
            sawStats = true
            try scanner.forEachMember(s, &q, depth: 3) { ss, se, sesc, r in
                try entry(s, ss, se, sesc, &r, &reports, &series, &legacy)
            }
        }
        // An older Chrome's page (2020) wrote no statsType and no timestamp
        // series, only each series' startTime/endTime: nothing places a
        // value in time, which is worth saying rather than "no samples".
        let untimed = !series.isEmpty && series.allSatisfy {
            $0.series.type.isEmpty && $0.series.values[StatsProperty.timestamp.rawValue] == nil
        }
        let empty = !sawStats ? "no stats" : legacy ? "legacy goog* stats only (no standard getStats reports)"
            : untimed ? "series without statsType or timestamp (an older Chrome's dump, times only as startTime/endTime): not read"
            : "no stats samples"
        pipeline.submit { [self, series, meta] results in
            var converter = ConnectionConverter(connection: key)
            converter.publishers = meta.publishers
            converter.returns = ConnectionMeta.returns(meta.states)
            let outOfRange = forEachSample(series) { converter.feed($0) }
            converter.finish(states: meta.states)
            var meta = meta
            meta.dropStatesAfterFarEndClosed(converter.farEndClosedAt)
            results.append(ConnectionResult(converter: converter, meta: meta, emptyReason: empty, outOfRange: outOfRange))
        }
    }

    /// The page's log of a connection's API calls and events: its state
    /// changes, `close`, and what it was set up for. Times the page wrote
    /// as epoch ms or RFC 3339 are used; a locale text (Chrome before 144)
    /// is kept as a wall clock, placed when the dump tells its offset from
    /// UTC (`LocaleLogTime`), else the change keeps only its order.
    private func updateLog(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, _ meta: inout ConnectionMeta) throws {
        try scanner.forEachElement(s, &p, depth: 3) { _, q in
            guard s[q] == UInt8(ascii: "{") else { try scanner.skipValue(s, &q, depth: 4); return }
            var type: String?
            var value: String?
            var time: Int64?
            var wall: [LocaleLogTime.Reading] = []
            try scanner.forEachMember(s, &q, depth: 4) { ks, ke, kesc, r in
                let name = JSONScanner.stringBytes(s, ks, ke, kesc)
                let scalar = try scanner.scanScalar(s, &r, depth: 5)
                switch scalar {
                case .string(let a, let b, let esc):
                    let bytes = JSONScanner.stringBytes(s, a, b, esc)
                    if name == Array("type".utf8) { type = String(decoding: bytes, as: UTF8.self) }
                    else if name == Array("value".utf8) { value = String(decoding: bytes, as: UTF8.self) }
                    else if WebRTCInternalsImporter.isLogTime(name), time == nil {
                        time = WebRTCInternalsImporter.time(bytes)
                        if time == nil && wall.isEmpty { wall = LocaleLogTime.wallClock(bytes) ?? [] }
                    }
                case .number(let d):
                    // Chrome 156 writes `timestamp`, epoch ms with a fraction.
                    if WebRTCInternalsImporter.isLogTime(name), time == nil, let ms = Fixed(d)?.roundedHalfUp,
                       ms > 946_684_800_000 && ms < 1_000_000_000_000_000 {
                        time = ms
                    }
                default: break
                }
            }
            if meta.firstLogWall == nil { meta.firstLogWall = time == nil ? wall : [] }
            guard let type = type.map(WebRTCInternalsImporter.eventName) else { return }
            switch type {
            case "connectionstatechange", "iceconnectionstatechange":
                if let value {
                    meta.states.append(ConnectionMeta.StateChange(
                        ts: time, state: value.trimmingQuotes, ice: type == "iceconnectionstatechange", wall: wall))
                }
            case "close":
                if let time { meta.closedAt = meta.closedAt ?? time }
                meta.states.append(ConnectionMeta.StateChange(ts: time, state: "closed", ice: false, byApp: true, wall: wall))
            case "createDataChannel", "datachannel":
                meta.dataChannel = true
            case "setRemoteDescription":
                // The last one that holds a description (a rollback has none).
                if let value, value.contains("v=0") {
                    meta.remoteDescriptionText = value
                    meta.noteRemoteDescription(value)
                }
            case _ where ConnectionMeta.setsLocalDescription(type):
                if let value, value.contains("v=0") { meta.noteLocalDescription(value) }
            case "transceiverAdded", "transceiverModified", "ontrack":
                meta.mediaSetUp = true
                // The receiver's track and the stream it came in name the
                // track's sender (webrtc-import.md, "publishers").
                if let value,
                   let (track, stream) = type == "ontrack"
                    ? WebRTCInternalsImporter.trackEventTrackAndStream(value) : WebRTCInternalsImporter.receiverTrackAndStream(value),
                   let publisher = RTCStatsImporter.publisher(stream: stream) {
                    meta.publishers[track] = publisher
                }
            case "addTrack", "addStream", "addTransceiver":
                meta.mediaSetUp = true
            default: break
            }
        }
    }

    /// Why a dump without peer connections has none, most of the time.
    static let noConnections = "the dump holds no peer connections: the page saw none, or (Chrome 156 at least) removed them, "
        + "as it does soon after a connection is closed; for a dump of a call, download it during the call, "
        + "or open the page as chrome://webrtc-internals/?keepRemovedConnections before the call"

    /// Why a dump whose connections are all under `peerConnections` has
    /// none that mqa reads.
    static let legacyConnections = "the dump's connections are under `peerConnections`, as rtcstats-server's JSON of 2016 "
        + "wrote them (event lists with legacy goog* stats), not under the page's `PeerConnections`: not read"

    /// Whether a log entry's member holds its time: `time` (Chrome before
    /// 156: epoch ms, RFC 3339 or a locale text) or `timestamp` (Chrome
    /// 156: epoch ms as a number with a fraction).
    static func isLogTime(_ name: [UInt8]) -> Bool {
        name == Array("time".utf8) || name == Array("timestamp".utf8)
    }

    /// A log entry's type as the mapping names it. Chrome 156 names the
    /// connection's events after their handlers (`onconnectionstatechange`,
    /// `oniceconnectionstatechange`, `ondatachannel`), where earlier
    /// versions wrote `connectionstatechange`, … (and `ontrack` both ways).
    static func eventName(_ type: String) -> String {
        switch type {
        case "onconnectionstatechange", "oniceconnectionstatechange", "ondatachannel": String(type.dropFirst(2))
        default: type
        }
    }

    /// The track and first stream id of an `ontrack` entry: Chrome 156
    /// writes JSON (`{"kind": …, "id": "<track>", "streams": ["<id>", …]}`),
    /// earlier versions `video:<track> stream:<stream>`.
    static func trackEventTrackAndStream(_ text: String) -> (String, String)? {
        guard text.hasPrefix("{") else { return RTCStatsImporter.trackAndStream(text) }
        guard let object = (try? ExactJSONReader.parse(Data(text.utf8))) as? [String: Any],
              let track = object["id"] as? String, !track.isEmpty,
              let stream = (object["streams"] as? [Any])?.first as? String, !stream.isEmpty else { return nil }
        return (track, stream)
    }

    /// The receiver's track and first stream id in the page's text of a
    /// transceiver; nil when it names none. Chrome writes it as JSON
    /// (`{"mid": …, "receiver": {"track": "<id>", "streams": ["<id>", …]}, …}`),
    /// older versions as `getTransceivers()[i]:{ … receiver:{ track:'<id>',
    /// streams:['<id>', …] } … }`.
    static func receiverTrackAndStream(_ text: String) -> (String, String)? {
        if text.hasPrefix("{") {
            return (try? ExactJSONReader.parse(Data(text.utf8))).flatMap { $0 as? [String: Any] }.flatMap(receiverTrackAndStream)
        }
        guard let receiver = text.range(of: "receiver:{") else { return nil }
        let rest = text[receiver.upperBound...]
        let block = rest[..<(rest.firstIndex(of: "}") ?? rest.endIndex)]
        func quoted(after label: String) -> String? {
            guard let at = block.range(of: label) else { return nil }
            let from = block[at.upperBound...].drop { $0 == " " }
            guard let quote = from.first, quote == "'" || quote == "\"" else { return nil }
            let body = from.dropFirst()
            guard let end = body.firstIndex(of: quote) else { return nil }
            return String(body[..<end])
        }
        guard let track = quoted(after: "track:"), let stream = quoted(after: "streams:["),
              !track.isEmpty, !stream.isEmpty else { return nil }
        return (track, stream)
    }

    /// The receiver's track and first stream id of a transceiver entry
    /// read as JSON (Chrome 156's page, and its rtcstats format 3).
    static func receiverTrackAndStream(_ entry: [String: Any]) -> (String, String)? {
        guard let receiver = entry["receiver"] as? [String: Any],
              let track = receiver["track"] as? String, !track.isEmpty,
              let stream = (receiver["streams"] as? [Any])?.first as? String, !stream.isEmpty else { return nil }
        return (track, stream)
    }

    /// A log time as epoch ms: digits, or RFC 3339; nil otherwise.
    static func time(_ bytes: [UInt8]) -> Int64? {
        if !bytes.isEmpty, bytes.count <= 20, let v = Double(String(decoding: bytes, as: UTF8.self)), v > 946_684_800_000, v < 1e15 {
            return Int64(v.rounded())
        }
        return bytes.withUnsafeBufferPointer { RFC3339.milliseconds($0) }
    }


    /// One `stats` entry: kept when its property is one the mapping reads.
    private func entry(
        _ s: UnsafeBufferPointer<UInt8>, _ ks: Int, _ ke: Int, _ kesc: Bool, _ p: inout Int,
        _ reports: inout [String: Int], _ series: inout [(id: String, series: Series)], _ legacy: inout Bool
    ) throws {
        let key = JSONScanner.stringBytes(s, ks, ke, kesc)
        // Derived series (`-[…]`) are the page's own arithmetic, not stats.
        var derived = false
        for i in key.indices.dropLast() where key[i] == UInt8(ascii: "-") && key[i + 1] == UInt8(ascii: "[") { derived = true; break }
        let dash = key.lastIndex(of: UInt8(ascii: "-"))
        let property = dash.flatMap { d in key.withUnsafeBufferPointer { StatsProperty.match($0, d + 1, $0.count) } }
        guard !derived, let dash, let property, s[p] == UInt8(ascii: "{") else {
            if !legacy, dash.map({ d in key[(d + 1)...].starts(with: Array("goog".utf8)) }) == true { legacy = true }
            try scanner.skipValue(s, &p, depth: 4)
            return
        }
        var type: String? = nil
        var values: [StatsValue?]? = nil
        try scanner.forEachMember(s, &p, depth: 4) { ns, ne, nesc, q in
            let name = JSONScanner.stringBytes(s, ns, ne, nesc)
            if name == Array("statsType".utf8), case .string(let a, let b, let esc) = try scanner.scanScalar(s, &q, depth: 5) {
                type = String(decoding: JSONScanner.stringBytes(s, a, b, esc), as: UTF8.self)
            } else if name == Array("values".utf8) {
                values = try valueArray(s, &q, key: key)
            } else {
                try scanner.skipValue(s, &q, depth: 5)
            }
        }
        let id = String(decoding: key[..<dash], as: UTF8.self)
        let slot: Int
        if let known = reports[id] {
            slot = known
        } else {
            slot = series.count
            reports[id] = slot
            series.append((id, Series()))
        }
        if let type {
            series[slot].series.type = type
            if type == "ssrc" || type.hasPrefix("goog") || type == "VideoBwe" { legacy = true }
        }
        if let values { series[slot].series.values[property.rawValue] = values }
    }

    /// A `values` field: a JSON string holding an array (or, leniently, the array itself).
    private func valueArray(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int, key: [UInt8]) throws -> [StatsValue?]? {
        func elements(_ b: UnsafeBufferPointer<UInt8>, _ q: inout Int) throws -> [StatsValue?] {
            var out: [StatsValue?] = []
            var last: (start: Int, end: Int, value: StatsValue?)? = nil
            try scanner.forEachElement(b, &q, depth: 6) { _, r in
                let scalar = try scanner.scanScalar(b, &r, depth: 7)
                // String series repeat one value ("audio", a track id): share it.
                if case .string(let start, let end, _) = scalar {
                    if let l = last, l.end - l.start == end - start,
                        memcmp(b.baseAddress! + l.start, b.baseAddress! + start, end - start) == 0
                    {
                        out.append(l.value)
                        return
                    }
                    let value = StatsReport.value(scalar, in: b)
                    last = (start, end, value)
                    out.append(value)
                    return
                }
                out.append(StatsReport.value(scalar, in: b))
            }
            return out
        }
        if s[p] == UInt8(ascii: "[") { return try elements(s, &p) }
        guard case .string(let a, let b, let escaped) = try scanner.scanScalar(s, &p, depth: 5) else { return nil }
        func parse(_ inner: UnsafeBufferPointer<UInt8>) throws -> [StatsValue?] {
            var q = 0
            do {
                scanner.skipSpace(inner, &q)
                let out = try elements(inner, &q)
                scanner.skipSpace(inner, &q)
                guard q == inner.count else { throw SyntaxError(message: "text after the array", column: q + 1) }
                return out
            } catch let e as SyntaxError {
                throw ImportError("stats \"\(String(decoding: key, as: UTF8.self))\": values is not a JSON array (\(e.message) at column \(e.column))")
            }
        }
        if !escaped { return try parse(UnsafeBufferPointer(rebasing: s[a..<b])) }
        return try JSONScanner.stringBytes(s, a, b, true).withUnsafeBufferPointer { try parse($0) }
    }

    /// The connection's samples (Docs/import.md, "Getting a dump"):
    /// the distinct rounded times of its locally stamped reports; at each,
    /// those reports that have a value then, plus each remote-stamped
    /// report's latest value since the previous sample. A time out of the
    /// event log's range (0, a year 2100) places nothing: its values are
    /// left out, and the distinct such times returned, sorted, to be told.
    func forEachSample(_ series: [(id: String, series: Series)], _ body: (StatsSample) -> Void) -> [Int64] {
        struct Timed {
            var times: [Int64?]
            var remote: Bool
        }
        let timed = series.map { entry -> Timed in
            let times = (entry.series.values[StatsProperty.timestamp.rawValue] ?? []).map { $0?.number?.roundedHalfUp }
            return Timed(times: times, remote: StatsReport.Category(entry.series.type).isRemoteStamped)
        }
        var all = Set<Int64>()
        var outOfRange = Set<Int64>()
        for t in timed where !t.remote {
            for time in t.times {
                guard let time else { continue }
                if context.isSampleTime(time) { all.insert(time) } else { outOfRange.insert(time) }
            }
        }
        let sampleTimes = all.sorted()
        guard !sampleTimes.isEmpty else { return outOfRange.sorted() }
        /// The first sample at or after `time`.
        func firstSample(atOrAfter time: Int64) -> Int { sampleTimes.partitionPoint { $0 >= time } }
        // at[r][k]: report r's element index at sample k.
        var at = [[Int?]](repeating: [Int?](repeating: nil, count: sampleTimes.count), count: series.count)
        for (r, t) in timed.enumerated() {
            var stamp = [Int64?](repeating: nil, count: sampleTimes.count)
            for (i, time) in t.times.enumerated() {
                guard let time, context.isSampleTime(time) else { continue }
                // A local value is at its own sample; a remote one joins the
                // first sample at or after it, the latest such value winning.
                let k = firstSample(atOrAfter: time)
                guard k < sampleTimes.count else { continue }
                if t.remote, let s = stamp[k], s > time { continue }
                stamp[k] = time
                at[r][k] = i
            }
        }
        // One report value per series, updated in place sample after sample
        // (the sample handed out is released before the next update, so
        // nothing is copied).
        var current = series.map { StatsReport(type: $0.series.type) }
        var reports: [(id: String, report: StatsReport)] = []
        for (k, time) in sampleTimes.enumerated() {
            reports.removeAll(keepingCapacity: true)
            for r in series.indices {
                guard let i = at[r][k] else { continue }
                let n = timed[r].times.count
                for (pi, values) in series[r].series.values.enumerated() {
                    guard let values else { continue }
                    // Shorter series are aligned to the end of the timestamps.
                    let j = i - (n - values.count)
                    current[r][StatsProperty(rawValue: pi)!] = j >= 0 && j < values.count ? values[j] : nil
                }
                reports.append((series[r].id, current[r]))
            }
            body(StatsSample(ts: time, statsTime: Fixed(integer: time), reports: reports))
        }
        return outOfRange.sorted()
    }
}

extension String {
    /// `"failed"` → `failed`: some pages quote the logged value.
    var trimmingQuotes: String {
        guard count >= 2, hasPrefix("\""), hasSuffix("\"") else { return self }
        return String(dropFirst().dropLast())
    }
}

import MQABase
import MQAModel
import MQAStore

/// Reads an rtcstats dump: one JSON array `[method, pcId, value, ts]` per
/// line; `getstats` lines are delta-compressed samples per connection.
struct RTCStatsImporter {
    let context: ImportContext
    private let scanner = JSONWalker()

    init(context: ImportContext) { self.context = context }

    /// A report as a `getstats` line gives it: its type when given, and the
    /// properties it carries (a null value clears one).
    struct Delta {
        var id: String
        var type: String?
        var changes: [(StatsProperty, StatsValue?)]
    }

    struct Connection {
        var converter: ConnectionConverter
        var reports: [String: StatsReport] = [:]
        var gotStats = false
    }

    func convert(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Conversion {
        var conversion = Conversion(format: .rtcstats)
        var connections: [String: Connection] = [:]
        var order: [String] = []
        var arrays = 0
        var objects = 0
        var lineNumber = 0
        var start = 0
        let n = bytes.count
        while start < n {
            var end = start
            while end < n && bytes[end] != 0x0A { end += 1 }
            lineNumber += 1
            var stop = end
            if stop > start && bytes[stop - 1] == 0x0D { stop -= 1 }
            var from = start
            if lineNumber == 1 && stop - from >= 3 && bytes[from] == 0xEF && bytes[from + 1] == 0xBB && bytes[from + 2] == 0xBF { from += 3 }
            let line = UnsafeBufferPointer(rebasing: bytes[from..<stop])
            start = end + 1
            if WebRTCImport.isBlank(line) { continue }
            do {
                guard let parsed = try parse(line) else { objects += 1; continue }
                arrays += 1
                guard let (pcID, sample) = parsed else { continue }
                if connections[pcID] == nil {
                    connections[pcID] = Connection(
                        converter: ConnectionConverter(meeting: context.meeting, uid: context.uid(pcID), connection: pcID))
                    order.append(pcID)
                }
                guard let sample else { continue }
                var c = connections[pcID]!
                connections[pcID] = nil  // unique, so the state is changed in place
                c.gotStats = true
                var next: [(id: String, report: StatsReport)] = []
                next.reserveCapacity(sample.deltas.count)
                var reports: [String: StatsReport] = [:]
                for delta in sample.deltas {
                    // A known id carries what changed; a new (or returning) one the whole report.
                    var report = c.reports[delta.id] ?? StatsReport(type: delta.type ?? "")
                    if let type = delta.type { report.type = type }
                    for (p, v) in delta.changes { report[p] = v }
                    if reports[delta.id] == nil { next.append((delta.id, report)) }
                    reports[delta.id] = report
                }
                c.reports = reports
                c.converter.feed(StatsSample(ts: sample.ts, statsTime: sample.statsTime, reports: next))
                connections[pcID] = c
            } catch {
                let reason = (error as? LineReject)?.reason ?? "\(error)"
                conversion.rejects.append(ImportReject(line: lineNumber, reason: reason, raw: WebRTCImport.rawBytes(line), size: line.count))
            }
        }
        // A file without a single array line is not an rtcstats dump (a
        // wrongly forced format must not mark the content as ingested).
        guard arrays > 0 || !conversion.rejects.isEmpty else {
            if objects > 0 { throw ImportError("server-side dump: only JSON object lines, no rtcstats [method, pcId, value, ts] lines") }
            throw ImportError("no rtcstats lines ([method, pcId, value, ts] arrays)")
        }
        for id in order {
            var c = connections[id]!
            try context.finish(&c.converter, into: &conversion, emptyReason: "no getstats samples")
        }
        if connections.isEmpty && objects > 0 {
            conversion.skipped.append(SkippedConnection(
                file: context.file, connection: "", reason: "server-side dump: \(objects) JSON object lines carry no samples"))
        }
        return conversion
    }

    struct LineReject: Error { var reason: String }

    struct Sample {
        var ts: Int64
        var statsTime: Fixed
        var deltas: [Delta]
    }

    /// nil for an object line (no events); `.some(nil)` for an array line
    /// that is not a sample; else the connection and, for getstats, the sample.
    private func parse(_ line: UnsafeBufferPointer<UInt8>) throws -> (String, Sample?)?? {
        var p = 0
        scanner.skipSpace(line, &p)
        do {
            if line[p] == UInt8(ascii: "{") {
                try scanner.skipValue(line, &p, depth: 0)
                scanner.skipSpace(line, &p)
                guard p == line.count else { throw SyntaxError(message: "not valid JSON: unexpected text after the object", column: p + 1) }
                return nil
            }
            guard line[p] == UInt8(ascii: "[") else {
                var q = p
                try scanner.skipValue(line, &q, depth: 0)
                throw LineReject(reason: "not a JSON array")
            }
            var method: String? = nil
            var pcID: String? = nil
            var sample: Sample? = nil
            var problem: String? = nil
            var statsTime: Fixed? = nil
            var lineTime: Fixed? = nil
            try scanner.forEachElement(line, &p, depth: 0) { index, q in
                switch index {
                case 0:
                    if case .string(let s, let e, let esc) = try scanner.scanScalar(line, &q, depth: 1) {
                        method = String(decoding: JSONScanner.stringBytes(line, s, e, esc), as: UTF8.self)
                    }
                case 1:
                    if case .string(let s, let e, let esc) = try scanner.scanScalar(line, &q, depth: 1) {
                        pcID = String(decoding: JSONScanner.stringBytes(line, s, e, esc), as: UTF8.self)
                    }
                case 2 where method == "getstats" || method == "getStats":
                    if line[q] == UInt8(ascii: "{") {
                        (sample, statsTime) = try parseSample(line, &q)
                    } else if case .string(let s, let e, let esc) = try scanner.scanScalar(line, &q, depth: 1) {
                        // Older clients send the sample as a JSON string.
                        let inner = JSONScanner.stringBytes(line, s, e, esc)
                        try inner.withUnsafeBufferPointer { b in
                            var r = 0
                            scanner.skipSpace(b, &r)
                            guard r < b.count, b[r] == UInt8(ascii: "{") else { problem = "getstats: the value string is not a JSON object"; return }
                            do {
                                (sample, statsTime) = try parseSample(b, &r)
                                scanner.skipSpace(b, &r)
                                if r != b.count { problem = "getstats: text after the object in the value string" }
                            } catch let e as SyntaxError {
                                problem = "getstats: the value string is not valid JSON (\(e.message) at column \(e.column))"
                            }
                        }
                    } else {
                        problem = "getstats without an object"
                    }
                case 3:
                    if case .number(let d) = try scanner.scanScalar(line, &q, depth: 1) { lineTime = Fixed(d) }
                default:
                    try scanner.skipValue(line, &q, depth: 1)
                }
            }
            scanner.skipSpace(line, &p)
            guard p == line.count else { throw SyntaxError(message: "not valid JSON: unexpected text after the array", column: p + 1) }
            guard method == "getstats" || method == "getStats" else {
                return .some(pcID.map { ($0, nil) })
            }
            if let problem { throw LineReject(reason: problem) }
            guard var sample else { throw LineReject(reason: "getstats without an object") }
            guard let pcID else { throw LineReject(reason: "getstats without a peer connection id (2nd element)") }
            guard let time = lineTime ?? statsTime else { throw LineReject(reason: "getstats without a time (no ts, no timestamp)") }
            let ts = time.roundedHalfUp
            guard ts > 0 && ts < 1 << 50 else { throw LineReject(reason: "getstats: time \(ts) out of range") }
            sample.ts = ts
            sample.statsTime = statsTime ?? time
            return .some((pcID, sample))
        } catch let e as SyntaxError {
            throw LineReject(reason: e.message + " at column \(e.column)")
        } catch let e as LineReject {
            throw e
        } catch {
            throw LineReject(reason: "\(error)")
        }
    }

    /// A getstats object: `timestamp` and the reports keyed by id.
    private func parseSample(_ s: UnsafeBufferPointer<UInt8>, _ p: inout Int) throws -> (Sample, Fixed?) {
        var deltas: [Delta] = []
        var timestamp: Fixed? = nil
        try scanner.forEachMember(s, &p, depth: 1) { ks, ke, kesc, q in
            if s[q] != UInt8(ascii: "{") {
                let value = try scanner.scanScalar(s, &q, depth: 2)
                if ke - ks == 9 && !kesc && StatsProperty.match(s, ks, ke) == .timestamp, case .number(let d) = value {
                    timestamp = Fixed(d)
                }
                return
            }
            var delta = Delta(id: String(decoding: JSONScanner.stringBytes(s, ks, ke, kesc), as: UTF8.self), type: nil, changes: [])
            try scanner.forEachMember(s, &q, depth: 2) { ps, pe, pesc, r in
                let property: StatsProperty?
                if pesc {
                    let name = JSONScanner.stringBytes(s, ps, pe, true)
                    property = name.withUnsafeBufferPointer { StatsProperty.match($0, 0, $0.count) }
                } else {
                    property = StatsProperty.match(s, ps, pe)
                }
                guard let property else { try scanner.skipValue(s, &r, depth: 3); return }
                let value = StatsReport.value(try scanner.scanScalar(s, &r, depth: 3), in: s)
                if property == .type { delta.type = value?.text } else { delta.changes.append((property, value)) }
            }
            deltas.append(delta)
        }
        return (Sample(ts: 0, statsTime: .zero, deltas: deltas), timestamp)
    }
}

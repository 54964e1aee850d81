import MQABase
import MQAModel

/// Writes stored events back as event-log lines, ordered by meeting, uid and
/// ts, quality reports decoded from their chunks with their logged decimals.
/// Ingesting the output into an empty store gives the same store back.
public struct Exporter {
    public enum Format: String, CaseIterable, Sendable { case ndjson, csv }

    public let store: EventStore

    public init(store: EventStore) { self.store = store }

    /// Exports one meeting, or all when `meeting` is nil; returns the number
    /// of lines written (the CSV header not counted).
    @discardableResult
    public func export(meeting: String?, format: Format, to out: OutputSink) throws -> Int {
        let meetings: [String]
        if let meeting {
            guard try !store.clients(meeting: meeting).isEmpty else { throw StoreError.noMeeting(meeting) }
            meetings = [meeting]
        } else {
            // Exit 0 means all of it: what a walk of the meetings would miss
            // (a chunk of no client) fails the export, as a bad checksum does.
            let blockers = try store.exportBlockers()
            if !blockers.isEmpty {
                let more = blockers.count > 3 ? " and \(blockers.count - 3) more" : ""
                throw StoreError.inconsistent(blockers.prefix(3).joined(separator: "; ") + more + " (`mqa check` lists the damage)")
            }
            meetings = try store.meetings()
        }
        if format == .csv { out.write(Exporter.csvHeader) }
        var count = 0
        // One buffer for every report line, kept between lines.
        var line: [UInt8] = []
        for meeting in meetings {
            // What a dump's stats added (Docs/import.md): one line each after
            // the client's first, in NDJSON, which ingests back.
            let contexts = format == .ndjson ? try store.connectionContexts(meeting: meeting) : [:]
            for (id, uid) in try store.clients(meeting: meeting) {
                var pendingContexts = contexts[uid] ?? []
                let head = ReportLine(meeting: meeting, uid: uid)
                // A failed write (full disk, `ulimit -f`) drops the rest:
                // stop decoding, the error is the result.
                if let failure = out.failure { throw failure }
                // Events and reports chunk by chunk: memory follows the
                // chunk, not the client's series.
                let eventChunks = try store.eventChunks(client: id, meeting: meeting, uid: uid)
                var events: [TimedEvent] = []
                var moreEvents = true
                let chunks = try store.reportChunks(client: id, meeting: meeting, uid: uid)
                var reports = SeriesBlock(ts: [], columns: [])
                var more = true
                // The client's time order (`ClientLog.eventComesFirst`),
                // with both arriving chunk by chunk.
                var e = 0
                var r = 0
                var rank = SameTimeRank()
                while true {
                    if r == reports.ts.count && more {
                        if let next = try chunks.next() {
                            reports = next
                            r = 0
                            continue
                        }
                        more = false
                    }
                    if e == events.count && moreEvents {
                        if let next = try eventChunks.next() {
                            events = next
                            e = 0
                            continue
                        }
                        moreEvents = false
                    }
                    let ts: Int64
                    if e < events.count,
                       r == reports.ts.count
                        || ClientLog.eventComesFirst(events[e], reportTs: reports.ts[r], reportRank: rank.rank(of: reports.ts[r])) {
                        write(events[e], meeting: meeting, uid: uid, format: format, to: out)
                        ts = events[e].ts
                        e += 1
                    } else if r < reports.ts.count {
                        writeReport(reports, r, meeting: meeting, uid: uid, format: format, head: head, line: &line, to: out)
                        ts = reports.ts[r]
                        rank.take(reports.ts[r])
                        r += 1
                    } else {
                        break
                    }
                    count += 1
                    if !pendingContexts.isEmpty {
                        // After the client's first line, at its time.
                        for c in pendingContexts { out.write(c.line(ts: ts)) }
                        count += pendingContexts.count
                        pendingContexts = []
                    }
                }
            }
        }
        out.flush()
        return count
    }

    private func envelope(_ ts: Int64, _ kind: EventKind, _ meeting: String, _ uid: String) -> String {
        var line = "{\"ts\":\(ts),\"event\":\"\(kind.name)\",\"meeting\":"
        JSON.quote(meeting, into: &line)
        line += ",\"uid\":"
        JSON.quote(uid, into: &line)
        return line
    }

    private func write(_ event: TimedEvent, meeting: String, uid: String, format: Format, to out: OutputSink) {
        let payload = event.payload.canonicalJSON
        switch format {
        case .ndjson:
            var line = envelope(event.ts, event.payload.kind, meeting, uid)
            if payload.count > 2 { line += "," + payload.dropFirst() } else { line += "}" }
            out.write(line + "\n")
        case .csv:
            out.write(
                ([String(event.ts), event.payload.kind.name, CSV.cell(meeting), CSV.cell(uid)]
                    + ReportColumn.allCases.map { _ in "" } + [CSV.jsonCell(payload)]).joined(separator: ",") + "\n")
        }
    }

    /// The CSV columns: the envelope, the report's values, then the
    /// payload of every other event.
    static let csvHeader = (["ts", "event", "meeting", "uid"] + ReportColumn.allCases.map(\.name) + ["payload"])
        .joined(separator: ",") + "\n"

    /// What every quality report line of a client has around its
    /// numbers, as bytes: `{"ts":`, then the timestamp, then this.
    struct ReportLine {
        static let opening = Array("{\"ts\":".utf8)
        let afterTs: [UInt8]

        init(meeting: String, uid: String) {
            var text = ",\"event\":\"\(EventKind.qualityReport.name)\",\"meeting\":"
            JSON.quote(meeting, into: &text)
            text += ",\"uid\":"
            JSON.quote(uid, into: &text)
            afterTs = Array(text.utf8)
        }
    }

    /// `,"loss":` … per value column, as bytes.
    private static let jsonKeyBytes = ReportColumn.allCases.map { ($0, Array(",\"\($0.name)\":".utf8)) }

    /// One quality report, as `envelope` and `jsonText` would write it:
    /// NDJSON is built as bytes in `line` (a String per number was most
    /// of an export).
    private func writeReport(_ s: SeriesBlock, _ i: Int, meeting: String, uid: String, format: Format, head: ReportLine,
                             line: inout [UInt8], to out: OutputSink) {
        switch format {
        case .ndjson:
            line.removeAll(keepingCapacity: true)
            line.append(contentsOf: ReportLine.opening)
            DecimalNumber.appendInteger(s.ts[i], to: &line)
            line.append(contentsOf: head.afterTs)
            for (c, key) in Exporter.jsonKeyBytes {
                line.append(contentsOf: key)
                s.columns[c.rawValue][i].appendJSONText(to: &line)
            }
            line.append(UInt8(ascii: "}"))
            line.append(UInt8(ascii: "\n"))
            line.withUnsafeBytes { out.write(bytes: $0) }
        case .csv:
            // An empty cell, not `null`, for a MOS the SDK did not give.
            let values = ReportColumn.allCases.map { c in
                let text = s[c][i].jsonText
                return c == .mos && text == "null" ? "" : text
            }
            out.write(
                ([String(s.ts[i]), "quality_report", CSV.cell(meeting), CSV.cell(uid)] + values + [""])
                    .joined(separator: ",") + "\n")
        }
    }
}

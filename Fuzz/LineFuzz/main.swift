// libFuzzer target for the line scanner and validator (LineParser +
// JSONScanner), built by Fuzz/run.sh together with MQAStore and the parsing
// and model sources of MQADomain.
//
// Beyond "never crashes", it checks the two round trips the store relies on:
// - a stored event's canonical payload JSON parses back to the same payload
//   (else an accepted line would later read as a damaged chunk);
// - the line `mqa export` writes for an accepted event parses back to the
//   same event (else export -> ingest would not give the same store).
// A violated property traps, which libFuzzer reports as a crash.

import MQAStore

/// Fixed "now" so that a crash input replays the same way: 2026-12-01.
let fuzzNow: Int64 = 1_796_083_200_000

var parser = LineParser(nowMs: fuzzNow)
var second = LineParser(nowMs: fuzzNow)

func exportLine(ts: Int64, kind: EventKind, meeting: String, uid: String, payloadJSON: String) -> String {
    var line = "{\"ts\":\(ts),\"event\":\"\(kind.name)\",\"meeting\":"
    JSON.quote(meeting, into: &line)
    line += ",\"uid\":"
    JSON.quote(uid, into: &line)
    if payloadJSON.count > 2 { line += "," + payloadJSON.dropFirst() } else { line += "}" }
    return line
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("property violated: " + message()) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = UnsafeBufferPointer(start: data, count: size)
    let outcome = parser.parse(line)
    guard outcome == .event else { return 0 }
    let ts = parser.ts
    let kind = parser.kind
    let meeting = String(decoding: parser.meeting, as: UTF8.self)
    let uid = String(decoding: parser.uid, as: UTF8.self)
    if kind == .qualityReport {
        // What the store keeps and the exporter writes back: the decimals.
        let values = [parser.loss, parser.rtt, parser.jitter, parser.bitrate, parser.mos]
        let texts = values.map(\.jsonText)
        var exported = exportLine(ts: ts, kind: kind, meeting: meeting, uid: uid, payloadJSON: "{}")
        exported.removeLast()
        exported += ",\"loss\":\(texts[0]),\"rtt\":\(texts[1]),\"jitter\":\(texts[2]),\"bitrate\":\(texts[3]),\"mos\":\(texts[4])}"
        let again = Array(exported.utf8)
        again.withUnsafeBufferPointer { buffer in
            let o = second.parse(buffer)
            check(o == .event, "exported report rejected: \(o) \(exported)")
            check(second.ts == ts && second.kind == kind, "envelope changed: \(exported)")
            check(second.meeting == parser.meeting && second.uid == parser.uid, "meeting/uid changed: \(exported)")
            let back = [second.loss, second.rtt, second.jitter, second.bitrate, second.mos]
            for (a, b) in zip(values, back) {
                check(a.isNull == b.isNull && (a.isNull || a.doubleValue! == b.doubleValue!),
                      "value \(a) became \(b): \(exported)")
            }
        }
        return 0
    }
    let payload = parser.payload(in: line)
    let canonical = payload.canonicalJSON
    let canonicalBytes = Array(canonical.utf8)
    let decoded = canonicalBytes.withUnsafeBufferPointer { second.payload(of: kind, canonicalJSON: $0) }
    check(decoded == payload, "canonical JSON does not read back: \(canonical)")
    let exported = Array(exportLine(ts: ts, kind: kind, meeting: meeting, uid: uid, payloadJSON: canonical).utf8)
    exported.withUnsafeBufferPointer { buffer in
        let o = second.parse(buffer)
        check(o == .event, "exported line rejected: \(o) \(String(decoding: exported, as: UTF8.self))")
        check(second.ts == ts && second.kind == kind, "envelope changed")
        check(second.meeting == parser.meeting && second.uid == parser.uid, "meeting/uid changed")
        check(second.payload(in: buffer) == payload, "payload changed on export")
    }
    return 0
}

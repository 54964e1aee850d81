import MQABase
import MQAModel
import MQAStore

// Writing event payloads into the converter's `out`, byte by byte.
extension ConnectionConverter {
    @discardableResult
    mutating func begin(_ ts: Int64, _ event: ImportedPiece.Event, _ kind: ImportedPiece.Kind) -> Int {
        pieces.append(ImportedPiece(ts: ts, event: event, start: out.count, kind: kind))
        return pieces.count - 1
    }

    /// Where the payload of piece `i` of `pieces` lies in an `out` of
    /// `count` bytes (payloads are contiguous in creation order).
    static func payloadRange(_ pieces: [ImportedPiece], _ i: Int, outCount count: Int) -> Range<Int> {
        pieces[i].start..<(i + 1 < pieces.count ? pieces[i + 1].start : count)
    }

    mutating func trackFields(_ publisher: String, _ track: String) {
        ConnectionConverter.appendTrackFields(publisher, track, to: &out)
    }

    /// A track event's `,"publisher":…,"track":…` (the converter's and the
    /// assembler's own track events alike).
    static func appendTrackFields(_ publisher: String, _ track: String, to out: inout [UInt8]) {
        out += Array(",\"publisher\":".utf8)
        appendString(publisher, to: &out)
        out += Array(",\"track\":".utf8)
        appendString(track, to: &out)
    }

    mutating func status(_ ts: Int64, _ k: Int, _ publisher: String, _ track: String, timedOut: Bool) {
        let i = begin(ts, .receiveStreamStatus, .track)
        pieces[i].track = Int32(k)
        pieces[i].timedOut = timedOut
        trackFields(publisher, track)
        text(timedOut ? ",\"timedOut\":true}\n" : ",\"timedOut\":false}\n")
    }

    mutating func text(_ s: String) { out.append(contentsOf: s.utf8) }

    /// Hundredths as a short decimal: 30 → `0.3`, 5 → `0.05`, 10000 → `100`.
    static func appendHundredths(_ h: Int128, to out: inout [UInt8]) {
        var s = String(h / 100)
        let cents = Int(h % 100)
        if cents != 0 {
            s += cents % 10 == 0 ? ".\(cents / 10)" : (cents < 10 ? ".0\(cents)" : ".\(cents)")
        }
        out.append(contentsOf: s.utf8)
    }

    /// A JSON string literal: `JSON.appendQuoted`, the one rule.
    static func appendString(_ s: String, to out: inout [UInt8]) {
        JSON.appendQuoted(s.utf8, to: &out)
    }
}

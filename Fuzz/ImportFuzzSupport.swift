// Shared by the two import fuzz targets (compiled into each): the property
// both check on top of "never crashes".

import MQAStore

let fuzzNow: Int64 = 1_796_083_200_000
var lineParser = LineParser(nowMs: fuzzNow)

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("property violated: " + message()) }
}

/// Converts the input; every produced line must be an event the ingest
/// validator accepts, or be refused only for its envelope (a uid over 256
/// characters, a time out of range): those are the validator's to judge.
func fuzzImport(_ data: UnsafePointer<UInt8>, _ size: Int, _ format: InputFormat) {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let conversion = try? WebRTCImport.convert(input, format: format, fileName: "fuzz.txt", meeting: nil) else { return }
    var produced = 0
    conversion.lines.withUnsafeBufferPointer { lines in
        var start = 0
        while let newline = lines[start...].firstIndex(of: 0x0A) {
            let line = UnsafeBufferPointer(rebasing: lines[start..<newline])
            switch lineParser.parse(line) {
            case .event: break
            case .ignored: check(false, "produced an unknown event: \(String(decoding: line, as: UTF8.self))")
            case .rejected(let reason):
                check(reason.hasPrefix("uid:") || reason.hasPrefix("ts:"),
                      "produced a line the validator rejects (\(reason)): \(String(decoding: line, as: UTF8.self))")
            }
            produced += 1
            start = newline + 1
        }
        check(start == lines.count, "output does not end with a newline")
    }
    check(produced == conversion.events, "counted \(conversion.events) events, produced \(produced) lines")
}

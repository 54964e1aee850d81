// parse-bench: the line parser alone (JSON scan and event-log validation),
// on log files held in memory, so its figures carry no reading, hashing or
// storing. Run with `swift run -c release parse-bench [--rounds N] FILE...`
// (or `@LIST`, a file naming one input per line). Prints ns a line and MB/s
// per round, and what became of the lines; under `valgrind --tool=callgrind`
// with `--rounds 1` it gives the parser's instruction count.
import Dispatch
import Foundation
import MQAModel

var rounds = 3
var paths: [String] = []
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    if a == "--rounds", let n = args.popFirst().flatMap({ Int($0) }), n > 0 {
        rounds = n
    } else if a.hasPrefix("@") {
        guard let list = try? String(contentsOfFile: String(a.dropFirst()), encoding: .utf8) else {
            FileHandle.standardError.write(Data("parse-bench: cannot read the list \(a.dropFirst())\n".utf8))
            exit(66)
        }
        paths += list.split(separator: "\n").map(String.init)
    } else if a.hasPrefix("-") {
        FileHandle.standardError.write(Data("usage: parse-bench [--rounds N] FILE... | @LIST\n".utf8))
        exit(64)
    } else {
        paths.append(a)
    }
}
guard !paths.isEmpty else {
    FileHandle.standardError.write(Data("usage: parse-bench [--rounds N] FILE... | @LIST\n".utf8))
    exit(64)
}

// Every input's bytes, one after another; each line as (start, end),
// without a CR before its LF and blank ones (spaces only) left out, as
// the ingest reads them. Compressed inputs are not decoded here.
var text: [UInt8] = []
var lines: [(Int, Int)] = []
@MainActor func blank(_ from: Int, _ to: Int) -> Bool {
    text[from..<to].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
}
for path in paths {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("parse-bench: cannot read \(path)\n".utf8))
        exit(66)
    }
    let base = text.count
    text += data
    var start = base
    for i in base..<text.count where text[i] == UInt8(ascii: "\n") {
        let end = i > start && text[i - 1] == 0x0D ? i - 1 : i
        if end > start && !blank(start, end) { lines.append((start, end)) }
        start = i + 1
    }
    if text.count > start && !blank(start, text.count) { lines.append((start, text.count)) }
}
let bytes = lines.reduce(0) { $0 + $1.1 - $1.0 }
print("\(paths.count) files, \(lines.count) lines, \(String(format: "%.1f", Double(bytes) / 1e6)) MB")

let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
text.withUnsafeBufferPointer { all in
    for round in 1...rounds {
        var parser = LineParser(nowMs: nowMs)
        var events = 0, ignored = 0, rejected = 0
        var reasons: [String: Int] = [:]
        let start = DispatchTime.now().uptimeNanoseconds
        for (from, to) in lines {
            switch parser.parse(UnsafeBufferPointer(rebasing: all[from..<to])) {
            case .event: events += 1
            case .ignored: ignored += 1
            case .rejected(let reason):
                rejected += 1
                if round == 1 { reasons[reason, default: 0] += 1 }
            }
        }
        let ns = Double(DispatchTime.now().uptimeNanoseconds - start)
        print(String(format: "round %d: %.1f ns a line, %.0f MB/s (events %d, ignored %d, rejected %d)",
                     round, ns / Double(lines.count), Double(bytes) / ns * 1e3, events, ignored, rejected))
        for (reason, count) in reasons.sorted(by: { $0.value > $1.value }).prefix(3) {
            print("  rejected \(count)x: \(reason)")
        }
    }
}

import Foundation
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// A one-line progress bar on a terminal, redrawn at most ten times a second.
final class ProgressBar {
    private let sink: OutputSink
    private var lastDraw = 0.0
    private let started = Date()

    init(sink: OutputSink) { self.sink = sink }

    func update(done: Int, total: Int, label: String) {
        let now = Date().timeIntervalSince(started)
        guard now - lastDraw >= 0.1 else { return }
        lastDraw = now
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let mb = Double(done) / 1e6
        let rate = now > 0 ? mb / now : 0
        let name = label.count > 30 ? "…" + label.suffix(29) : label
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        sink.write("\r\u{1B}[K\(bar) \(Int(fraction * 100))%  \(String(format: "%.1f", mb)) MB  \(String(format: "%.1f", rate)) MB/s  \(name)")
        sink.flush()
    }

    func finish() {
        sink.write("\r\u{1B}[K")
        sink.flush()
    }
}

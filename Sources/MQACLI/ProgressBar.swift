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
    /// Seconds between redraws (and before the first).
    private let interval: Double

    init(sink: OutputSink, interval: Double = 0.1) {
        self.sink = sink
        self.interval = interval
    }

    /// A bar on standard error when it is a terminal; nil in a pipe or a
    /// file, where redrawn lines would be noise in a log.
    /// `MQA_PROGRESS_INTERVAL_MS` (for tests, not documented) sets the
    /// redraw interval, so that a short run draws too.
    static func onTerminal(_ context: CommandContext) -> ProgressBar? {
        guard context.stderr.isTerminal else { return nil }
        let ms = context.environment["MQA_PROGRESS_INTERVAL_MS"].flatMap(Double.init) ?? 100
        return ProgressBar(sink: context.stderr, interval: max(0, ms) / 1000)
    }

    /// Bytes done of `total`, with the rate and what is being read.
    func update(done: Int, total: Int, label: String) {
        guard let (now, fraction) = due(done, total) else { return }
        let mb = Double(done) / 1e6
        let rate = now > 0 ? mb / now : 0
        let name = label.count > 30 ? "…" + label.suffix(29) : label
        draw(fraction, "\(String(format: "%.1f", mb)) MB  \(String(format: "%.1f", rate)) MB/s  \(name)")
    }

    /// Items done of `total`: `120/300 meetings`.
    func update(count done: Int, total: Int, noun: String) {
        guard let (_, fraction) = due(done, total) else { return }
        draw(fraction, "\(done)/\(total) \(noun)")
    }

    /// The time and fraction done, when a redraw is due.
    private func due(_ done: Int, _ total: Int) -> (Double, Double)? {
        let now = Date().timeIntervalSince(started)
        guard now - lastDraw >= interval else { return nil }
        lastDraw = now
        return (now, total > 0 ? min(1, Double(done) / Double(total)) : 0)
    }

    private func draw(_ fraction: Double, _ text: String) {
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        sink.write("\r\u{1B}[K\(bar) \(Int(fraction * 100))%  \(text)")
        sink.flush()
    }

    func finish() {
        sink.write("\r\u{1B}[K")
        sink.flush()
    }
}

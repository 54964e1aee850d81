import Foundation
import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// Inputs the import fuzz targets found; each once crashed the importer.
@Suite struct ImportFuzzRegressionTests {
    @Test func hugeValuesSaturateInsteadOfTrapping() throws {
        // internals fuzz: a jitter of 1.8e17 s overflowed the ms conversion.
        let text = #"{"PeerConnections":{"7-1":{"stats":{"I-timestamp":{"statsType":"inbound-rtp","values":"[1795946400000,1795946401000]"},"I-kind":{"statsType":"inbound-rtp","values":"[\"audio\",\"audio\"]"},"I-packetsReceived":{"statsType":"inbound-rtp","values":"[1,99999999999999999999]"},"I-packetsLost":{"statsType":"inbound-rtp","values":"[-99999999999999999999,99999999999999999999]"},"I-bytesReceived":{"statsType":"inbound-rtp","values":"[0,99999999999999999999]"},"I-jitter":{"statsType":"inbound-rtp","values":"[179594640007500199,99999999999999999999]"},"R-timestamp":{"statsType":"remote-inbound-rtp","values":"[1795946400000,1795946401000]"},"R-roundTripTime":{"statsType":"remote-inbound-rtp","values":"[99999999999999999999,99999999999999999999]"}}}}}"#
        let c = try Dump.convert(text, .webrtcInternals)
        // The second sample's counters are past what a stats number holds
        // (1e20): read as that bound, a huge count, as the spec's rules
        // take a browser's number (read as missing, the interval made no
        // report at all).
        #expect(Dump.reports(c).count == 2)
        #expect(Dump.reports(c).allSatisfy { ($0["loss"] as! NSNumber).doubleValue <= 100 })
    }

    /// rtcstats fuzz: absurd counters made a bitrate of 20 digits, which the
    /// validator rejects; converted numbers are capped to what it accepts.
    @Test func everyConvertedLineOfTheCrashInputsValidates() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let dir = root.appendingPathComponent("Fuzz/corpus/rtcstats")
        let crashes = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("crash-") }
        #expect(!crashes.isEmpty)
        for name in crashes {
            let bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent(name)))
            let conversion = try? bytes.withUnsafeBufferPointer {
                try WebRTCImport.convert($0, format: .rtcstats, fileName: "fuzz", meeting: nil)
            }
            guard let conversion else { continue }  // rejected whole: fine
            var parser = LineParser(nowMs: Int64.max / 2)
            for line in conversion.lines.split(separator: 0x0A) {
                let outcome = line.withUnsafeBufferPointer { parser.parse($0) }
                if case .rejected(let reason) = outcome {
                    Issue.record("\(name): \(reason): \(String(decoding: line, as: UTF8.self))")
                }
            }
        }
    }
}

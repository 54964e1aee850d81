import Testing
@testable import MQAIngest

/// The publisher of a track no description names is a uid ingest takes:
/// `remote-<ssrc>` as ever, and a report id too long for a uid cut to 256
/// characters with a digest, so two such ids stay two publishers.
@Suite struct UnnamedPublisherTests {
    @Test func shortNamesAreAsBefore() {
        #expect(ConnectionConverter.unnamedPublisher("3735928559") == "remote-3735928559")
        let id = String(repeating: "x", count: 249)
        #expect(ConnectionConverter.unnamedPublisher(id) == "remote-" + id)
    }

    @Test func longReportIdsAreCutWithADigest() {
        let a = String(repeating: "é", count: 250), b = String(repeating: "é", count: 249) + "e"
        let pa = ConnectionConverter.unnamedPublisher(a), pb = ConnectionConverter.unnamedPublisher(b)
        #expect(pa.unicodeScalars.count <= 256 && pb.unicodeScalars.count <= 256)
        #expect(pa.hasPrefix("remote-éééé") && pa != pb)
        #expect(pa == ConnectionConverter.unnamedPublisher(a))
        let huge = String(repeating: "👩🏽‍💻", count: 200)
        #expect(ConnectionConverter.unnamedPublisher(huge).unicodeScalars.count <= 256)
    }
}

import Testing
@testable import MQABase
@testable import MQAStore

/// `files` keeps digests as bytes and paths under a 32-bit key.
@Suite struct FileKeysTests {
    @Test func everySHA256TextRoundTripsThroughItsBytes() {
        var r = TestRandom(seed: 25)
        for _ in 0..<500 {
            let digest = (0..<32).map { _ in UInt8(truncatingIfNeeded: r.next()) }
            let text = SHA256.text(digest)
            #expect(FileKeys.sha256Bytes(text) == digest)
        }
    }

    @Test func otherTextsAreNotTakenForADigest() {
        let valid = SHA256.text([UInt8](repeating: 0xab, count: 32))
        #expect(FileKeys.sha256Bytes(valid) != nil)
        #expect(FileKeys.sha256Bytes(valid.uppercased()) == nil)
        #expect(FileKeys.sha256Bytes("sha256:" + String(repeating: "AB", count: 32)) == nil)
        #expect(FileKeys.sha256Bytes(String(valid.dropLast())) == nil)
        #expect(FileKeys.sha256Bytes(valid + "0") == nil)
        #expect(FileKeys.sha256Bytes("sha512:" + valid.dropFirst(7)) == nil)
        #expect(FileKeys.sha256Bytes(String(valid.dropLast()) + "g") == nil)
        // A version-1 fingerprint: 32 hex digits, kept as text.
        #expect(FileKeys.sha256Bytes(String(repeating: "0f", count: 16)) == nil)
    }

    @Test func digestsAreStoredAsBytesAndReadBackAsText() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (d BLOB)")
        let legacy = String(repeating: "0f", count: 16)
        let digest = SHA256.text((0..<32).map { UInt8($0 * 7) })
        let insert = try db.prepare("INSERT INTO t VALUES (?)")
        for value in [digest, legacy, nil] {
            insert.reset()
            FileKeys.bind(insert, 1, digest: value)
            try insert.run()
        }
        let s = try db.prepare("SELECT d, typeof(d), length(d) FROM t ORDER BY rowid")
        var read: [(String?, String?, Int)] = []
        while try s.step() { read.append((FileKeys.digest(s, 0), s.string(1), s.int(2))) }
        #expect(read.map(\.0) == [digest, legacy, nil])
        #expect(read.map(\.1) == ["blob", "text", "null"])
        #expect(read[0].2 == 32)
    }

    @Test func thePathKeyIsFNV1aOfTheUTF8FoldedToAnInt32() {
        // FNV-1a 32 of the empty string and of "a" (published test vectors).
        #expect(FileKeys.pathKey("") == Int64(Int32(bitPattern: 0x811c_9dc5)))
        #expect(FileKeys.pathKey("a") == Int64(Int32(bitPattern: 0xe40c_292c)))
        #expect(FileKeys.pathKey("/logs/café.ndjson") != FileKeys.pathKey("/logs/cafe.ndjson"))
        var r = TestRandom(seed: 3)
        for _ in 0..<200 {
            let path = "/logs/" + String(r.next() % 1_000_000) + ".ndjson"
            #expect(Int64(Int32.min)...Int64(Int32.max) ~= FileKeys.pathKey(path))
        }
    }
}

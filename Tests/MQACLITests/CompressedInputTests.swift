import Foundation
import Testing

/// Compressed inputs as a user gives them to `mqa ingest`: dump bombs
/// refused by their limit (the other inputs stored), pzstd's skippable
/// frames, and files that are neither text nor a supported compression.
@Suite struct CompressedInputTests {
    let dir = Scratch()
    var db: String { dir.file("store.sqlite") }

    func ingest(_ paths: [String], stdin: String? = nil, environment: [String: String] = [:]) -> MQA.Result {
        MQA.run(["ingest", "--db", db, "--format", "json"] + paths, stdin: stdin, environment: environment, timeout: 300)
    }

    func summary(_ r: MQA.Result) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any] ?? [:]
    }

    func events(_ r: MQA.Result) -> Int? { summary(r)["events"] as? Int }

    /// The start of a webrtc-internals dump whose one value string is then
    /// padded with spaces: valid-looking up to where a bomb expands.
    static let dumpHead = #"{"PeerConnections":{"1-1":{"stats":{"IA-timestamp":{"statsType":"inbound-rtp","values":"[1795946400000"#

    /// pzstd's layout: before each frame, a skippable frame (magic
    /// 0x184D2A50 little-endian, payload length, payload) holding the
    /// frame's size. `text` is cut into frames at `cuts` (byte offsets,
    /// mid-line on purpose).
    static func pzstd(_ text: String, cuts: [Int]) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var from = 0
        for to in cuts + [bytes.count] {
            let frame = ZstdFrame.header + ZstdFrame.raw(Array(bytes[from..<to]), last: true)
            let n = UInt32(frame.count)
            out += [0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, UInt8(n & 0xff), UInt8((n >> 8) & 0xff), UInt8((n >> 16) & 0xff), UInt8(n >> 24)]
            out += frame
            from = to
        }
        return out
    }

    @Test func dumpBombsAreRefusedByTheirLimitAndTheOtherInputsStored() {
        // 3 GiB of spaces in a 99 KB zstd frame (RLE blocks): 32,000:1.
        let zstd = dir.write("bomb.txt.zst", bytes: ZstdFrame.bomb(prefix: Self.dumpHead, byte: 0x20, count: 3 << 30, suffix: "]\"}}}}}"))
        // 100 MiB of spaces after an rtcstats line, gzip -9: about 1,000:1.
        let gzip = dir.file("bomb.log.gz")
        let made = MQA.shell(
            #"{ printf '["create","pc1",{},1795946399000]\n["getstats","pc1",{"timestamp":1795946400000,"x":"'; head -c 100M /dev/zero | tr '\0' ' '; printf '"},1795946400000]\n'; } | gzip -9 > "$1""#
                .replacingOccurrences(of: "$1", with: gzip))
        #expect(made.status == 0, "\(made)")
        let log = dir.write("good.ndjson", Lines.meeting("m-good"))
        let dump = dir.write("call.txt", ImportCLITests.internals)
        let r = ingest([zstd, log, gzip, dump])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: \(zstd): zstd content expands more than 1000:1 ("), "\(r)")
        #expect(r.stderr.contains("Error: \(gzip): gzip content expands more than 100:1 ("), "\(r)")
        #expect(r.stderr.contains("the limit for a compressed stats dump past 64 MiB"), "\(r)")
        #expect(!r.stderr.contains("failed to allocate"), "\(r)")
        #expect(events(r) == 10 + 4, "the log's 10 events and the good dump's 4: \(r)")
        #expect(r.maxRSSKiB < 300_000, "peak memory \(r.maxRSSKiB) KiB: a bomb holds at most 64 MiB")
        #expect(MQA.run(["check", "--db", db]).status == 0)
    }

    @Test func aDumpOverTheSizeLimitIsRefusedWhetherPlainCompressedOrPiped() {
        // Valid JSON of about 5 KB (whitespace before the closing brace).
        let text = String(ImportCLITests.internals.dropLast()) + String(repeating: " ", count: 5000) + "}"
        let plain = dir.write("big.txt", text)
        let zstd = dir.write("big.txt.zst", bytes: ZstdFrame.stored(text))
        let small = dir.write("small.txt", ImportCLITests.internals)
        let limit = ["MQA_MAX_DUMP_BYTES": "4096"]
        let r = ingest([plain, zstd, small], environment: limit)
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: \(plain): this stats dump is 5.1 KiB, over the 4 KiB limit for one (MQA_MAX_DUMP_BYTES raises it)"), "\(r)")
        #expect(r.stderr.contains("Error: \(zstd): this stats dump expands past the 4 KiB limit"), "\(r)")
        #expect(events(r) == 4, "the small dump is stored: \(r)")
        // Through a pipe, whose size is not known before it is read.
        let piped = MQA.shell("cat '\(plain)' | \"$MQA\" ingest --db '\(db)' -", environment: limit)
        #expect(piped.status == 1, "\(piped)")
        #expect(piped.stderr.contains("Error: -: this stats dump expands past the 4 KiB limit"), "\(piped)")
        // The same dump under the default limit is a dump like any other.
        let again = ingest([plain])
        #expect(again.status == 0 && events(again) == 4, "\(again)")
    }

    @Test func pzstdOutputIngestsAllItsEvents() {
        let text = Lines.meeting("m-1") + Lines.meeting("m-2")
        let log = dir.write("p.ndjson.zst", bytes: Self.pzstd(text, cuts: [100, 101, 1500]))
        let dump = dir.write("p-call.txt.zst", bytes: Self.pzstd(ImportCLITests.internals, cuts: [30, 31]))
        let r = ingest([log, dump])
        #expect(r.status == 0, "\(r)")
        #expect(events(r) == 20 + 4, "\(r)")
        #expect(summary(r)["rejected"] as? Int == 0, "\(r)")
        let formats = summary(r)["formats"] as? [String: [String: Int]]
        #expect(formats?["webrtc-internals"]?["events"] == 4, "\(r)")
        // Cut inside a frame after a skippable one: damaged, not read as plain.
        let bytes = Self.pzstd(text, cuts: [100])
        let cut = dir.write("cut.ndjson.zst", bytes: Array(bytes.prefix(bytes.count - 40)))
        let c = ingest([cut])
        #expect(c.status == 1 && c.stderr.contains("Error: \(cut): zstd stream is damaged or truncated"), "\(c)")
    }

    @Test func binaryLookingFilesFailWithOneSentence() {
        // An lz4 frame header, then what a flood of rejects was made of.
        let lz4 = dir.write("a.ndjson.lz4", bytes: [0x04, 0x22, 0x4D, 0x18, 0x64, 0x40, 0xA7] + Array(String(repeating: "x\u{1}y\n", count: 500).utf8))
        // A zstd file whose content is gzip (compressed twice).
        let twice = dir.write("b.ndjson.gz.zst", bytes: ZstdFrame.header + ZstdFrame.raw([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03], last: true))
        let utf16 = dir.write("c.ndjson", bytes: [0xFF, 0xFE] + Lines.meeting("m-16").utf16.flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] })
        let good = dir.write("good.ndjson", Lines.meeting("m-good"))
        let r = ingest([lz4, twice, utf16, good])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: \(lz4): looks compressed or binary (first bytes 04 22 4d 18), not an event log; supported: plain, gzip, zstd"), "\(r)")
        #expect(r.stderr.contains("Error: \(twice): its zstd content looks compressed or binary (first bytes 1f 8b 08 00), not an event log"), "\(r)")
        #expect(r.stderr.contains("Error: \(utf16): looks like UTF-16 text (first bytes ff fe 7b 00), not an event log"), "\(r)")
        #expect(!r.stderr.contains("not valid JSON"), "\(r)")
        #expect(events(r) == 10 && summary(r)["rejected"] as? Int == 0, "\(r)")
    }

    /// Plain text is never refused as binary: a BOM, colour codes, a Latin-1
    /// line, a form feed; their bad lines are rejected one by one as before.
    @Test func textIsNeverTakenForBinary() {
        let bom = dir.write("bom.ndjson", "\u{FEFF}" + Lines.meeting("m-bom"))
        let colours = dir.write("colours.ndjson", "\u{1B}[32mstarting\u{0C}\u{1B}[0m\u{07}\n" + Lines.meeting("m-colours"))
        let latin1 = dir.write("latin1.ndjson", bytes: [0x63, 0x61, 0x66, 0xE9, 0x20, 0xE0, 0x0A] + Array(Lines.meeting("m-latin1").utf8))
        // Only the first 64 bytes decide: binary further on is a reject.
        let later = dir.write("later.ndjson", bytes: Array(Lines.meeting("m-later").utf8) + [0x00, 0x01, 0x02, 0xFF, 0x0A])
        // A JSON line with a NUL in its first bytes is that line's reject:
        // the file's other lines are stored.
        let nul = dir.write("nul.ndjson", bytes: Array(#"{"uid":"u"#.utf8) + [0x00] + Array(#"","ts":1}"#.utf8) + [0x0A]
                            + Array(Lines.meeting("m-nul").utf8))
        let spaced = dir.write("spaced.ndjson", bytes: Array(#"{ "uid":"u"#.utf8) + [0x00] + Array(#"","ts":1}"#.utf8) + [0x0A]
                               + Array(Lines.meeting("m-spaced").utf8))
        let r = ingest([bom, colours, latin1, later, nul, spaced])
        #expect(r.status == 3, "\(r)")
        #expect(!r.stderr.contains("looks compressed or binary"), "\(r)")
        #expect(events(r) == 60, "\(r)")
        #expect(summary(r)["rejected"] as? Int == 5, "the colour line, the Latin-1 line, the binary line, the NUL lines: \(r)")
        #expect(r.stderr.contains("nul.ndjson:1: not valid JSON: control character in string"), "\(r)")
    }

    /// A log cut in place by `copytruncate` while its writer kept writing
    /// at its offset starts with a hole of NUL bytes: the hole and the line
    /// it runs into are one reject, the lines after it are stored. A file
    /// of NULs then something that starts no JSON line, or of NULs alone,
    /// is still refused.
    @Test func aHoleOfNULBytesIsALineNotABinaryFile() {
        let lines = Lines.meeting("m-hole")
        let hole = dir.write("hole.ndjson", bytes: [UInt8](repeating: 0, count: 300) + Array(lines.utf8))
        // Longer than the 64 KiB read to tell.
        let long = dir.write("long.ndjson", bytes: [UInt8](repeating: 0, count: 100_000) + [0x0A] + Array(Lines.meeting("m-long").utf8))
        let mp4 = dir.write("clip.ndjson", bytes: [0, 0, 0, 0x20] + Array("ftypisom".utf8) + [UInt8](repeating: 1, count: 60))
        // NUL bytes alone are no log, however many.
        let zeros = dir.write("zeros.ndjson", bytes: [UInt8](repeating: 0, count: 100_000))
        let r = ingest([hole, long, mp4, zeros])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("Error: \(mp4): looks compressed or binary (first bytes 00 00 00 20)"), "\(r)")
        #expect(r.stderr.contains("Error: \(zeros): looks compressed or binary (first bytes 00 00 00 00)"), "\(r)")
        #expect(r.stderr.contains("hole.ndjson:1: not valid JSON"), "\(r)")
        #expect(r.stderr.contains("long.ndjson:1: not valid JSON"), "\(r)")
        // Each file's first event is in the rejected first line; the rest are stored.
        #expect(events(r) == 2 * (lines.split(separator: "\n").count - 1) + 1, "\(r)")
        #expect(summary(r)["rejected"] as? Int == 2, "\(r)")
    }
}

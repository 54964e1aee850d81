import Foundation
import Testing
import MQABase
import MQAModel
import MQAStore
import MQAIngest

/// Damaged chunks are found by `mqa check` (named by meeting, client, table
/// and chunk id), reports on them say so and still show the rest, and
/// `mqa export` refuses to write damaged data as if it were whole.
@Suite struct CorruptionTests {
    struct Chunk {
        var id: Int64
        var meeting: String
        var uid: String
    }

    /// A chunk of `table` with the meeting and uid it belongs to.
    func pick(_ db: Database, _ table: String, offset: Int) throws -> Chunk {
        let s = try db.prepare(
            """
            SELECT k.id, m.meeting, c.uid FROM \(table) k JOIN clients c ON c.id = k.client_id
            JOIN meetings m ON m.id = c.meeting_id ORDER BY k.id LIMIT 1 OFFSET ?
            """)
        s.bind(1, offset)
        guard try s.step() else { throw CorruptData("no chunk") }
        return Chunk(id: s.int64(0), meeting: s.string(1)!, uid: s.string(2)!)
    }

    /// XORs the byte at `position` of a chunk's blob (negative: from the end).
    func flip(_ db: Database, _ table: String, _ id: Int64, at position: Int) throws {
        let read = try db.prepare("SELECT data FROM \(table) WHERE id = ?")
        read.bind(1, id)
        _ = try read.step()
        var blob = read.blob(0)
        let p = position >= 0 ? position : blob.count + position
        blob[p] ^= 0x5A
        let write = try db.prepare("UPDATE \(table) SET data = ? WHERE id = ?")
        write.bind(1, blob: blob)
        write.bind(2, id)
        try write.run()
    }

    @Test func flippedBytesAreNamedAndReportsShowTheRest() throws {
        let dir = Scratch()
        let log = dir.simulated("log.ndjson", meetings: 3, seed: 5)
        let path = dir.file("store.sqlite")
        #expect(MQA.run(["ingest", "--db", path, log]).status == 0)
        #expect(MQA.run(["check", "--db", path]).status == 0)
        let cleanExport = MQA.run(["export", "--db", path]).stdout

        let db = try Database(path: path)
        let report = try pick(db, "report_chunks", offset: 1)
        let event = try pick(db, "event_chunks", offset: 4)
        let header = try pick(db, "report_chunks", offset: 7)
        try flip(db, "report_chunks", report.id, at: -3)  // inside the zstd frame
        try flip(db, "event_chunks", event.id, at: 20)
        try flip(db, "report_chunks", header.id, at: 2)  // the stored CRC itself
        // Row metadata that no longer matches the data.
        try db.execute("UPDATE report_chunks SET count = count + 1 WHERE id = (SELECT max(id) FROM report_chunks)")

        let check = MQA.run(["check", "--db", path])
        #expect(check.status == 1, "\(check)")
        #expect(check.stderr.contains("Error: 4 problems found"), "\(check)")
        for (chunk, table) in [(report, "report_chunks"), (event, "event_chunks"), (header, "report_chunks")] {
            let row = check.stdout.split(separator: "\n").first { $0.contains("| \(chunk.id) ") && $0.contains(table) }
            #expect(row?.contains(chunk.meeting) == true && row?.contains(chunk.uid) == true, "\(table) \(chunk.id): \(check)")
            #expect(row?.contains("checksum mismatch") == true, "\(check)")
        }
        #expect(check.stdout.contains("chunk holds"), "count mismatch named: \(check)")

        let json = MQA.run(["check", "--db", path, "--format", "json"])
        #expect(json.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let damaged = object?["damaged"] as? [[String: Any]] ?? []
        #expect(damaged.count == 4)
        #expect(damaged.contains { $0["chunk"] as? Int == Int(report.id) && $0["uid"] as? String == report.uid
            && $0["meeting"] as? String == report.meeting && $0["table"] as? String == "report_chunks" })

        // The report renders, says what is missing, and shows the rest.
        for format in ["md", "json", "html", "csv"] {
            let r = MQA.run(["report", "meeting", report.meeting, "--db", path, "--format", format])
            #expect(r.status == 0, "\(format): \(r)")
            #expect(r.stderr.contains("Warning: damaged report chunk \(report.id) (report_chunks) of meeting \"\(report.meeting)\", client \"\(report.uid)\""), "\(r)")
            #expect(r.stdout.contains("damaged"), "\(format) says so: \(r.stdout.prefix(500))")
            #expect(r.stdout.contains(report.uid), "\(format) still shows the participants")
        }
        let fleet = MQA.run(["report", "fleet", "--db", path])
        #expect(fleet.status == 0, "\(fleet)")
        #expect(fleet.stderr.contains("Warning: damaged"), "\(fleet)")
        let out = dir.file("batch")
        let batch = MQA.run(["report", "meeting", "--all", "--out", out, "--db", path])
        #expect(batch.status == 0, "\(batch)")

        // Export stays strict: no silently partial data.
        let export = MQA.run(["export", "--db", path, "--meeting", report.meeting])
        #expect(export.status == 1, "\(export)")
        #expect(export.stderr.contains("damaged report chunk \(report.id)"), "\(export)")
        // A meeting without damage exports as before.
        let damagedMeetings = Set([report, event, header].map(\.meeting))
        let meetings = Set(cleanExport.split(separator: "\n").compactMap { line in
            line.range(of: "\"meeting\":\"").map { String(line[$0.upperBound...].prefix { $0 != "\"" }) } })
        for m in meetings.subtracting(damagedMeetings) {
            let e = MQA.run(["export", "--db", path, "--meeting", m])
            #expect(e.status == 0 && cleanExport.contains(e.stdout), "\(m): \(e)")
        }
    }

    @Test func damagedSQLiteFileIsReportedNotCrashed() throws {
        let dir = Scratch()
        let log = dir.simulated("log.ndjson", meetings: 2, seed: 9)
        let path = dir.file("store.sqlite")
        #expect(MQA.run(["ingest", "--db", path, log]).status == 0)
        do {
            let db = try Database(path: path)
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // Overwrite a stretch of b-tree pages in the middle of the file.
        var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        // The page size from the file header (big-endian at offset 16).
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        #expect(pageSize == 1024)
        let pages = bytes.count / pageSize
        for p in stride(from: 2, to: pages, by: 3) {
            for i in 0..<64 { bytes[p * pageSize + i] = 0xA5 }
        }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let check = MQA.run(["check", "--db", path])
        #expect(check.status == 1, "\(check)")
        #expect(check.signal == 0)
        #expect(check.stdout.contains("sqlite"), "\(check)")
        let report = MQA.run(["report", "fleet", "--db", path])
        #expect(report.signal == 0, "\(report)")
        #expect(report.status == 0 || report.status == 1, "\(report)")
    }

    /// A chunk whose client row is gone, or an empty meeting id: an export
    /// walks meetings and their clients, so it wrote all but that chunk
    /// (or lines no ingest takes) and exited 0. Both fail it now, and
    /// `mqa check` names both.
    @Test func anOrphanedChunkOrAnEmptyIdFailsTheExport() throws {
        let dir = Scratch()
        let log = dir.simulated("log.ndjson", meetings: 2, seed: 5)
        for (name, edit, told) in [
            ("orphan", "UPDATE report_chunks SET client_id = 999999 WHERE id = (SELECT min(id) FROM report_chunks)",
             "report_chunks row"),
            ("empty", "UPDATE meetings SET meeting = '' WHERE id = (SELECT min(id) FROM meetings)", "has an empty meeting id"),
            // A table WITHOUT ROWID has no row number to name.
            ("context", "INSERT INTO connection_names (client_id, connection, name) VALUES (999999, 'PC_0', 'x')",
             "connection_names a row refers to a missing clients row"),
            // A report leaves unreadable evidence out; an export would drop it unseen.
            ("received", "INSERT INTO connection_received (client_id, connection, received) VALUES ((SELECT min(id) FROM clients), 'PC_0', '{bad')",
             "connection PC_0, does not read"),
        ] {
            let path = dir.file("\(name).sqlite")
            #expect(MQA.run(["ingest", "--db", path, log]).status == 0)
            let db = try Database(path: path)
            try db.execute("PRAGMA foreign_keys = OFF")  // the damage is what is under test
            try db.execute(edit)
            let out = dir.file("\(name).ndjson")
            let export = MQA.run(["export", "--db", path, "--out", out])
            #expect(export.status == 1 && export.stderr.contains("store is inconsistent: ") && export.stderr.contains(told), "\(export)")
            #expect(!FileManager.default.fileExists(atPath: out))
            let check = MQA.run(["check", "--db", path])
            #expect(check.status == 1 && check.stdout.contains(told), "\(check)")
        }
    }
}

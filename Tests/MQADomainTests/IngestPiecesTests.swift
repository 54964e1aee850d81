import Foundation
import Testing
@testable import MQABase
@testable import MQAStore
@testable import MQAIngest

/// The ingest's pieces on their own: the read plan chosen from a path's
/// newest record, the summary scheduler, and a dump's identity.
@Suite struct IngestPiecesTests {
    func record(_ status: FileStatus, hash: String? = nil, prefix: String? = nil, linesDone: Int = 0) -> FileRecord {
        var summary = IngestSummary()
        summary.lines = linesDone
        return FileRecord(id: 7, hash: hash, path: "a.ndjson", status: status, linesDone: linesDone, prefixHash: prefix, summary: summary)
    }

    @Test("read plan: a partial record with a prefix digest is resumed after its last line")
    func resumesAPartialRecord() {
        let d = ReadPlan.decide(record(.partial, prefix: "sha256:p", linesDone: 120))
        #expect(d.plan == .resume(after: 120, prefix: "sha256:p"))
        #expect(d.resuming?.id == 7)
        #expect(d.superseding == nil && !d.needsRecord)
    }

    @Test("read plan: a finished record is compared with, and gets no new record yet", arguments: [FileStatus.done, .changed])
    func comparesWithAFinishedRecord(status: FileStatus) {
        let d = ReadPlan.decide(record(status, hash: "sha256:h", prefix: "sha256:h", linesDone: 300))
        #expect(d.plan == .compare(digest: "sha256:h"))
        #expect(d.resuming == nil && d.superseding == nil && !d.needsRecord)
    }

    @Test("read plan: an older mqa's partial record (no prefix) is superseded and the input read afresh")
    func supersedesAnOldPartialRecord() {
        let d = ReadPlan.decide(record(.partial, linesDone: 50))
        #expect(d.plan == .fresh)
        #expect(d.superseding?.id == 7 && d.resuming == nil && d.needsRecord)
    }

    @Test("read plan: no record, or an unreadable one, reads afresh under a new record")
    func readsANewInputAfresh() {
        for r in [nil, record(.done)] as [FileRecord?] {
            let d = ReadPlan.decide(r)
            if r == nil { #expect(d.plan == .fresh && d.needsRecord && d.superseding == nil) }
            // A finished record without a hash (never written so) is superseded, not compared.
            else { #expect(d.plan == .fresh && d.needsRecord && d.superseding?.id == 7) }
        }
    }

    @Test("summary scheduler without workers offers nothing and keeps no meetings")
    func schedulerWithoutWorkers() throws {
        let scheduler = SummaryScheduler(workers: nil)
        for m in 0..<5 { scheduler.touched(meeting: Int64(m)) }
        scheduler.committed()
        scheduler.committed()
        #expect(scheduler.offered == 0)
    }

    @Test("summary scheduler offers a meeting only after a commit that gave it no data")
    func schedulerOffersSettledMeetings() throws {
        let s = Scratch()
        let path = s.write("a.ndjson", [qr(t0, meeting: "m-1"), qr(t0, meeting: "m-2")])
        let store = try EventStore(path: s.db)
        _ = try Ingester(store: store).ingest(paths: [path])
        let scheduler = SummaryScheduler(workers: try SummaryWorkers(path: s.db, count: 1, background: true))
        scheduler.touched(meeting: 1)
        scheduler.touched(meeting: 2)
        scheduler.committed()
        #expect(scheduler.offered == 0, "meetings the commit just gave data may get more")
        scheduler.touched(meeting: 2)
        scheduler.committed()
        #expect(scheduler.offered == 1, "meeting 1 got nothing in the second commit")
        scheduler.committed()
        #expect(scheduler.offered == 2)
        scheduler.finish(storingInto: store)
    }

    @Test("a dump's identity: content, format, --meeting and file name, not the folder")
    func dumpIdentity() {
        let base = DumpReading.identity(content: "sha256:c", format: .rtcstats, meeting: nil, path: "/a/dump.log")
        #expect(DumpReading.identity(content: "sha256:c", format: .rtcstats, meeting: nil, path: "/b/dump.log") == base)
        #expect(DumpReading.identity(content: "sha256:d", format: .rtcstats, meeting: nil, path: "/a/dump.log") != base)
        #expect(DumpReading.identity(content: "sha256:c", format: .webrtcInternals, meeting: nil, path: "/a/dump.log") != base)
        #expect(DumpReading.identity(content: "sha256:c", format: .rtcstats, meeting: "m", path: "/a/dump.log") != base)
        #expect(DumpReading.identity(content: "sha256:c", format: .rtcstats, meeting: nil, path: "/a/other.log") != base)
    }
}

import Testing
@testable import MQABase
@testable import MQAModel
@testable import MQAAnalysis
@testable import MQAStore
@testable import MQAIngest

/// The parser's id buffers are handed to the batch (shared, not copied) on
/// every line: what a batch keeps per client must stay the size of an id
/// however many lines pass (they once grew by malloc's rounding on every
/// reallocation, to ~600 bytes each after 200k lines).
@Suite struct ParserMemoryTests {
    @Test func batchClientIdsStayTheSizeOfAnId() {
        var parser = BatchParser(nowMs: 1_800_000_000_000)
        var batches: [ParsedBatch] = []
        var largest = 0
        for i in 1...100_000 {
            let line = Array(#"{"ts":1795946404000,"event":"meeting_join","meeting":"m-\#(i)","uid":"u-\#(i % 7)","engine":"sfu"}"#.utf8)
            guard let batch = line.withUnsafeBufferPointer({ parser.add($0, number: i, oversize: nil) }) else { continue }
            #expect(batch.rejects.isEmpty)
            for c in batch.clients { largest = max(largest, c.meeting.capacity, c.uid.capacity) }
            batches.append(batch)  // a few batches wait in the queue
            if batches.count > 4 { batches.removeFirst() }
        }
        #expect(largest <= 128, "an id buffer grew to \(largest) bytes")
    }
}

import Foundation
import MQABase
import MQAStore

/// Encodes series for the writer on a thread of its own, so that the one
/// thread that writes SQLite goes on to the next input meanwhile.
///
/// A log in consecutive files is joined on the writer (`Ingester.carried`)
/// and then needs encoding there, not on a parsing thread: on 400 files of
/// the varied corpus that encoding was half of the writer's instructions,
/// and the writer is the thread the ingest waits for. The jobs run in the
/// order given, on one thread with its own chunk codec; the writer inserts
/// each result when it is ready or, at the latest, before it commits.
final class SeriesEncoder: @unchecked Sendable {
    private let thread = ParseThreads(limit: 1)
    /// Touched only by the encoder's thread (its jobs run one at a time).
    private var codec = ChunkCodec()

    init(recent: RecentChunks? = nil) {
        codec.recent = recent
    }

    /// Starts encoding `series`; the job gives the encoded series.
    func encode(_ series: PreparedSeries) -> EncodingJob {
        let job = EncodingJob()
        thread.run { [self] in
            var s = series
            job.finish(Result { try s.encode(codec: &codec); return s })
        }
        return job
    }

    /// Lets the thread end once the jobs given are done.
    func close() { thread.close() }
}

/// One series being encoded by a `SeriesEncoder`.
final class EncodingJob: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<PreparedSeries, Error>?

    fileprivate func finish(_ r: Result<PreparedSeries, Error>) {
        condition.lock()
        result = r
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the result is there (`wait` would not block).
    var isDone: Bool {
        condition.lock()
        defer { condition.unlock() }
        return result != nil
    }

    /// The encoded series, once encoded; rethrows the encoder's error.
    func wait() throws -> PreparedSeries {
        condition.lock()
        condition.wait(yieldingFirstUntil: { result != nil })
        let r = result!
        condition.unlock()
        return try r.get()
    }
}

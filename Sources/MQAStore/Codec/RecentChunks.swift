import Foundation
import MQAModel

/// Chunks this process encoded lately, kept in the form their readers
/// want back, so that summarizing a meeting right after ingesting it does
/// not decode what was just encoded.
///
/// An ingest encodes each client's chunks and, a commit later, a summary
/// worker reads them back to analyse the meeting: on 400 files of the
/// varied corpus that read-back (zstd, columns, doubles) was 7 % of all
/// instructions. With a `RecentChunks` on the codecs of the ingest and of
/// its summary workers, every encode remembers its block under the blob's
/// bytes and the summary's read takes it back instead of decoding.
///
/// Keyed by the blob itself, compared byte for byte: whatever row a
/// reader's snapshot holds, equal bytes decode to the remembered block
/// (the codecs round-trip exactly), so nothing depends on row ids,
/// transactions or which thread encoded. A block is handed out once (a
/// meeting is summarized once per change). Memory is bounded: past
/// `budget` bytes the oldest blocks are dropped, and their chunks are
/// decoded as before.
///
/// Reports are kept as the doubles `ReportColumns` holds, not as exact
/// decimals: decoding may give another (mantissa, exponent) for the same
/// value, while each double is the value correctly rounded either way.
///
/// `@unchecked Sendable`: all state is read and written under `lock`.
package final class RecentChunks: @unchecked Sendable {
    package enum Block {
        case reports(ReportColumns)
        case events(SharedEventBlock)
    }

    private struct Entry {
        var serial: Int
        var blob: [UInt8]
        var block: Block
        var bytes: Int
    }

    private let lock = NSLock()
    private let budget: Int
    /// By the blob's hash; more than one entry only on a collision or for
    /// equal blobs of two clients.
    private var entries: [UInt32: [Entry]] = [:]
    /// Oldest first, from `head`: what to drop when over `budget`.
    private var order: [(hash: UInt32, serial: Int)] = []
    private var head = 0
    private var serial = 0
    private var held = 0
    private var taken = 0
    private var droppedUnread = 0

    /// 16 MiB by default, about 350,000 reports: the summaries run a
    /// commit or so behind the writer, and on the varied benchmark corpus
    /// (4,939 files, 1.2 million reports) the ingest held at most 13.4 MB.
    package init(budget: Int = 16 << 20) {
        self.budget = budget
    }

    /// Remembers the reports that `blob` encodes.
    package func remember(_ blob: [UInt8], reports: ReportColumns) {
        add(blob, .reports(reports), bytes: blob.count + 48 * reports.count + 6 * 32)
    }

    /// Remembers the events that `blob` encodes.
    package func remember(_ blob: [UInt8], events: SharedEventBlock) {
        let payloadBytes = events.payloads.reduce(0) { $0 + $1.count + 32 }
        add(blob, .events(events), bytes: blob.count + 13 * events.ts.count + payloadBytes + 4 * 32)
    }

    /// The reports of `blob`, when remembered; they are not handed out again.
    package func takeReports(_ blob: UnsafeRawBufferPointer) -> ReportColumns? {
        if case .reports(let r)? = take(blob, reports: true) { return r }
        return nil
    }

    /// The events of `blob`, when remembered; they are not handed out again.
    package func takeEvents(_ blob: UnsafeRawBufferPointer) -> SharedEventBlock? {
        if case .events(let e)? = take(blob, reports: false) { return e }
        return nil
    }

    /// Bytes held now (an estimate of the blocks' memory).
    package var heldBytes: Int { locked { held } }
    /// Reads answered from memory.
    package var hits: Int { locked { taken } }
    /// Blocks dropped unread, past the budget.
    package var dropped: Int { locked { droppedUnread } }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func add(_ blob: [UInt8], _ block: Block, bytes: Int) {
        guard bytes <= budget else { return }
        let h = blob.withUnsafeBytes { ByteInterner.hash($0) }
        lock.lock()
        defer { lock.unlock() }
        serial += 1
        entries[h, default: []].append(Entry(serial: serial, blob: blob, block: block, bytes: bytes))
        order.append((h, serial))
        held += bytes
        while held > budget && head < order.count {
            let (oldHash, oldSerial) = order[head]
            head += 1
            if remove(hash: oldHash, where: { $0.serial == oldSerial }) != nil { droppedUnread += 1 }
        }
        // Taken entries leave their place in `order`; shed the used front
        // now and then so that it stays the size of what is held.
        if head > 4096 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }

    private func take(_ blob: UnsafeRawBufferPointer, reports: Bool) -> Block? {
        let h = ByteInterner.hash(blob)
        lock.lock()
        defer { lock.unlock() }
        guard entries[h] != nil else { return nil }
        let found = remove(hash: h) { entry in
            switch entry.block {
            case .reports: guard reports else { return false }
            case .events: guard !reports else { return false }
            }
            return entry.blob.count == blob.count
                && (blob.count == 0 || entry.blob.withUnsafeBytes { memcmp($0.baseAddress!, blob.baseAddress!, blob.count) == 0 })
        }
        if found != nil { taken += 1 }
        return found
    }

    /// Removes the first entry under `hash` that `matches`; the caller holds `lock`.
    private func remove(hash: UInt32, where matches: (Entry) -> Bool) -> Block? {
        guard var list = entries[hash], let i = list.firstIndex(where: matches) else { return nil }
        let entry = list.remove(at: i)
        entries[hash] = list.isEmpty ? nil : list
        held -= entry.bytes
        return entry.block
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import MQABase

/// `mqa demo` gives back what each step freed: glibc's `malloc_trim` must
/// be found, and a release must return freed pages (resident memory falls
/// by most of 64 MB freed in 4 KiB blocks, which no arena returns alone).
@Suite struct FreedMemoryTests {
    static func residentPages() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        return text.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    @Test func freedBlocksGoBackToTheSystem() throws {
        #if canImport(Glibc)
        #expect(FreedMemory.isAvailable)
        FreedMemory.release()
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<16_384 {
            let p = try #require(malloc(4096))
            memset(p, 1, 4096)
            blocks.append(p)
        }
        // One block kept at the end, so the arena's top is not free and
        // only a trim of its middle can give the rest back.
        let last = blocks.removeLast()
        for p in blocks { free(p) }
        let before = try #require(Self.residentPages())
        FreedMemory.release()
        let after = try #require(Self.residentPages())
        free(last)
        // Pages of 4 KiB: 64 MB is 16,384 of them; other tests running at
        // the same time may allocate, so ask for half.
        #expect(before - after > 8_192, "resident pages \(before) -> \(after)")
        #endif
    }
}

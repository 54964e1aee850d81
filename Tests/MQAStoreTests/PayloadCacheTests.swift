import Testing
@testable import MQAModel
@testable import MQAStore

/// Stored payload texts parsed for a meeting's reader: a long text seen
/// again shares the strings parsed the first time (one 1 MB title logged
/// on 300 joins was held 300 times), and distinct texts stay distinct.
@Suite struct PayloadCacheTests {
    static func join(title: String) -> [UInt8] { Array(#"{"engine":"sfu","title":"\#(title)"}"#.utf8) }

    /// Where a title's UTF-8 lives: the same place for shared strings.
    static func storage(_ s: String?) -> UnsafeRawPointer? {
        var s = s ?? ""
        return s.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func longTextsSeenAgainShareTheirStrings() throws {
        var cache = PayloadCache()
        let long = String(repeating: "x", count: PayloadCache.longestKept * 2)
        // Results taken first: the test macros cannot call on a cache that
        // is not copyable.
        let texts = [Self.join(title: long), Self.join(title: long), Self.join(title: long + "y")]
        let payloads = texts.map { cache.payload(of: .meetingJoin, canonicalJSON: $0) }
        let asReport = cache.payload(of: .qualityReport, canonicalJSON: texts[0])
        let damaged = Array(texts[0].dropLast())
        let broken = [cache.payload(of: .meetingJoin, canonicalJSON: damaged), cache.payload(of: .meetingJoin, canonicalJSON: damaged)]
        let (first, again, other) = (try #require(payloads[0]), try #require(payloads[1]), try #require(payloads[2]))
        #expect(first.string("title") == long && again.string("title") == long)
        #expect(Self.storage(first.string("title")) == Self.storage(again.string("title")))
        #expect(other.string("title") == long + "y")
        #expect(Self.storage(other.string("title")) != Self.storage(first.string("title")))
        // Another kind with the same text is parsed for that kind: not a join.
        #expect(asReport?.string("title") == nil)
        // A damaged long text is nil, each time.
        #expect(broken == [nil, nil])
    }
}

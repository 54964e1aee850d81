import Testing
@testable import MQAModel

/// The parser's plan: memory it owns for the life of the process, bounded
/// by the event table, and a layout per known kind that matches its
/// descriptor.
@Suite struct ParsePlanTests {
    /// 9,829 bytes for event log 1.2's 24 kinds: 8 KiB of layouts plus
    /// about 70 bytes a kind, so 16 KiB leaves room for ~90 more kinds.
    @Test func ownedMemoryIsBoundedByTheEventTable() {
        let plan = ParsePlan.shared
        #expect(plan.ownedBytes >= 256 * MemoryLayout<KindLayout>.stride)
        #expect(plan.ownedBytes < 16 << 10, "\(plan.ownedBytes) bytes for \(EventCatalog.descriptors.count) kinds")
    }

    @Test func eachKindsLayoutIsItsDescriptors() {
        let plan = ParsePlan.shared
        for d in EventCatalog.descriptors {
            plan.withLayout(of: d.kind) { slots, tags in
                #expect(Array(slots) == d.fields.map { FieldKey.named($0.name).rawValue }, "\(d.name)")
                #expect(Array(tags) == d.tags, "\(d.name)")
            }
            #expect(d.nameBytes.withUnsafeBufferPointer { plan.kind(named: $0) } == d.kind, "\(d.name)")
        }
    }
}

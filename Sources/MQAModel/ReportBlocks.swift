import MQABase

/// One client's quality reports in time order, handed out a block at a time
/// and readable any number of times.
///
/// The analysis makes one pass for the tier machine and one per metric for
/// its percentiles, holding one column of warm values at a time: a stored
/// client of millions of reports is decoded chunk by chunk instead of held
/// whole (six columns of 2.5M reports are 120 MB).
public struct ReportBlocks {
    /// Calls its argument with each block, in time order.
    private let read: ((ReportColumns) throws -> Void) throws -> Void

    /// Blocks read by `read`, which hands each to its argument in order.
    public init(read: @escaping ((ReportColumns) throws -> Void) throws -> Void) {
        self.read = read
    }

    /// Reports already in memory: one block.
    public init(_ columns: ReportColumns) {
        read = { try $0(columns) }
    }

    /// One pass over the reports.
    public func forEach(_ body: (ReportColumns) throws -> Void) throws {
        try withoutActuallyEscaping(body) { try read($0) }
    }
}

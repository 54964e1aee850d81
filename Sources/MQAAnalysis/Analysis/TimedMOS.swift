/// A warm report's time and the MOS the tier engine used for it.
public struct TimedMOS: Sendable, Equatable {
    public var ts: Int64
    public var mos: Double

    public init(ts: Int64, mos: Double) {
        self.ts = ts
        self.mos = mos
    }
}

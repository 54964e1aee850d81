extension Int {
    /// The count and its noun, singular for one: `1 stall`, `3 stalls`,
    /// `0 configs` (`plural` for nouns that add more than an `s`).
    public func counted(_ noun: String, plural: String? = nil) -> String {
        "\(self) " + (self == 1 ? noun : plural ?? noun + "s")
    }
}

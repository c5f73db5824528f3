extension Duration {
    /// The whole milliseconds of a duration (0 for a negative one).
    public var milliseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
    }
}

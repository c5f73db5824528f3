extension Duration {
    /// The whole nanoseconds of this duration, for Dispatch's deadlines.
    public var nanoseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}

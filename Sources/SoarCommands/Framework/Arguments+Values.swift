import SoarCore

extension Arguments {
    /// `--push-type`, alert by default, or a usage error listing the known types.
    public func pushType() throws(CommandError) -> PushType {
        let type = PushType(rawValue: value("--push-type") ?? "alert")
        guard type.isKnown else {
            throw .usage("unknown push type \(type); one of \(PushType.all.map(\.rawValue).joined(separator: ", "))")
        }
        return type
    }

    /// An integer option within a range, or a usage error naming it.
    public func integer(_ name: String, in range: ClosedRange<Int> = 0...Int.max) throws(CommandError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw .usage("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return number
    }

    /// A port number (0 picks a free one).
    public func port(_ name: String) throws(CommandError) -> UInt16? {
        try integer(name, in: 0...65535).map(UInt16.init)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: header and query values on every
    /// request, where Foundation's `trimmingCharacters(in:)` costs a bridged string copy.
    @inlinable
    public var trimmingSpaces: String {
        // On the bytes in place: a bearer token is hundreds of them, and walking a substring's
        // indexes costs more than the token's check.
        utf8.withContiguousStorageIfAvailable(Self.trimmingSpaces) ?? Array(utf8).withUnsafeBufferPointer(Self.trimmingSpaces)
    }

    @inlinable
    static func trimmingSpaces(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 32 || bytes[start] == 9 { start += 1 }
        while end > start, bytes[end - 1] == 32 || bytes[end - 1] == 9 { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Whether the text is `lowercase` in any ASCII case (a header name): no lowercased copy.
    @inlinable
    public func equalsIgnoringASCIICase(_ lowercase: String) -> Bool {
        guard utf8.count == lowercase.utf8.count else { return false }
        var expected = lowercase.utf8.makeIterator()
        for byte in utf8 {
            guard let wanted = expected.next() else { return false }
            if byte != wanted && !(byte >= 65 && byte <= 90 && byte | 0x20 == wanted) { return false }
        }
        return true
    }
}

extension String {
    /// The text in lowercase, without a copy when it has no ASCII capital (header names mostly).
    @inlinable
    public var lowercasedHeaderName: String {
        utf8.contains { $0 >= 65 && $0 <= 90 } ? lowercased() : self
    }
}

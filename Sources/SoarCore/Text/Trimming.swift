extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: header and query values on every
    /// request, where Foundation's `trimmingCharacters(in:)` costs a bridged string copy.
    @inlinable
    public var trimmingSpaces: String {
        let bytes = utf8
        var start = bytes.startIndex
        while start < bytes.endIndex, bytes[start] == 32 || bytes[start] == 9 { start = bytes.index(after: start) }
        // One pass: the end is just after the last byte that is neither a space nor a tab.
        var end = start
        var index = start
        while index < bytes.endIndex {
            let next = bytes.index(after: index)
            if bytes[index] != 32 && bytes[index] != 9 { end = next }
            index = next
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
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

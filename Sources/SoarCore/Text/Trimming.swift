extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: header and query values on every
    /// request, where Foundation's `trimmingCharacters(in:)` costs a bridged string copy.
    public var trimmingSpaces: String {
        let bytes = Array(utf8)
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 32 || bytes[start] == 9 { start += 1 }
        while end > start, bytes[end - 1] == 32 || bytes[end - 1] == 9 { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}

import Foundation

/// An APNs device token: the bytes the OS hands the app, and the lowercase hex the backend stores.
///
/// Apple documents tokens as opaque and variable in length (32 bytes today); this takes any
/// length up to ``maxBytes``, so a token always fits in a request's path.
public struct PushToken: Hashable, Sendable, Codable, CustomStringConvertible {
    public let bytes: Data
    /// The longest token taken, in bytes (512 hex digits).
    public static let maxBytes = 256

    /// Wraps the bytes from `didRegisterForRemoteNotificationsWithDeviceToken`.
    public init(bytes: Data) throws(PushTokenError) {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= Self.maxBytes else { throw .tooLong(bytes.count * 2) }
        self.bytes = bytes
    }

    /// Parses hex text in either case; surrounding whitespace and `<`, `>` or spaces from a
    /// printed `Data` description are ignored.
    public init(hex text: String) throws(PushTokenError) {
        var utf8 = Array(text.utf8)
        if utf8.contains(where: { $0 == 32 || $0 == 60 || $0 == 62 || (9...13).contains($0) }) {
            utf8.removeAll { $0 == 32 || $0 == 60 || $0 == 62 || (9...13).contains($0) }
        }
        guard !utf8.isEmpty else { throw .empty }
        guard utf8.count <= Self.maxBytes * 2 else { throw .tooLong(utf8.count) }
        var bytes = [UInt8](repeating: 0, count: utf8.count / 2)
        for index in stride(from: 0, to: utf8.count - 1, by: 2) {
            guard let high = Hex.value(utf8[index]) else { throw .notHex(utf8, at: index) }
            guard let low = Hex.value(utf8[index + 1]) else { throw .notHex(utf8, at: index + 1) }
            bytes[index / 2] = high << 4 | low
        }
        if !utf8.count.isMultiple(of: 2) {
            if let bad = utf8.firstIndex(where: { Hex.value($0) == nil }) { throw .notHex(utf8, at: bad) }
            throw .oddLength(utf8.count)
        }
        self.bytes = Data(bytes)
    }

    /// Lowercase hex, two digits a byte: the form stored in `device_tokens.token` and used in APNs paths.
    public var hex: String { bytes.hexEncodedString() }

    /// `text` as lowercase hex, checked as ``init(hex:)`` checks it; text already in that form is
    /// returned as it is, without decoding and encoding again (the bulk-send path).
    ///
    /// - Throws: ``PushTokenError`` as ``init(hex:)`` does.
    public static func normalizedHex(_ text: String) throws(PushTokenError) -> String {
        let lowercaseHex = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.isEmpty, bytes.count <= maxBytes * 2, bytes.count.isMultiple(of: 2) else { return false }
            for byte in bytes where !(byte &- 48 < 10 || byte &- 97 < 6) { return false }
            return true
        }
        if lowercaseHex == true { return text }
        return try PushToken(hex: text).hex
    }

    public var description: String { hex }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(hex: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

/// Why text or bytes are not a device token.
public struct PushTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    static let empty = PushTokenError(description: "a device token must not be empty")
    static func tooLong(_ digits: Int) -> PushTokenError {
        .init(description: "a device token is at most \(PushToken.maxBytes) bytes (\(PushToken.maxBytes * 2) hex digits), this one has \(digits) characters")
    }
    static func oddLength(_ count: Int) -> PushTokenError {
        .init(description: "a device token has an even number of hex digits, this one has \(count)")
    }
    static func notHex(_ utf8: [UInt8], at offset: Int) -> PushTokenError {
        // Name the whole character, even when it spans several UTF-8 bytes.
        let character = String(decoding: utf8[offset...], as: UTF8.self).first.map(String.init) ?? "?"
        return .init(description: "a device token is hex, but \"\(character)\" at position \(offset + 1) is not a hex digit")
    }
}

extension Data {
    /// Lowercase hex, two digits a byte.
    public func hexEncodedString() -> String {
        let digits = Hex.digits
        return withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: bytes.count * 2) { out in
                for (index, byte) in bytes.enumerated() {
                    out[2 * index] = digits[Int(byte >> 4)]
                    out[2 * index + 1] = digits[Int(byte & 0x0f)]
                }
                return bytes.count * 2
            }
        }
    }
}

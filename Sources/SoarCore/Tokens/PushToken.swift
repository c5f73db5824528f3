import Foundation

/// An APNs device token: the bytes the OS hands the app, and the lowercase hex the backend stores.
///
/// No length is assumed: Apple documents tokens as opaque and variable in length.
public struct PushToken: Hashable, Sendable, Codable, CustomStringConvertible {
    public let bytes: Data

    /// Wraps the bytes from `didRegisterForRemoteNotificationsWithDeviceToken`.
    public init(bytes: Data) throws(PushTokenError) {
        guard !bytes.isEmpty else { throw .empty }
        self.bytes = bytes
    }

    /// Parses hex text in either case; surrounding whitespace and `<`, `>` or spaces from a
    /// printed `Data` description are ignored.
    public init(hex text: String) throws(PushTokenError) {
        let hex = text.filter { !$0.isWhitespace && $0 != "<" && $0 != ">" }
        guard !hex.isEmpty else { throw .empty }
        guard hex.count.isMultiple(of: 2) else { throw .oddLength(hex.count) }
        var bytes = Data(capacity: hex.count / 2)
        var high: UInt8?
        for (offset, scalar) in hex.unicodeScalars.enumerated() {
            guard let nibble = Self.nibble(scalar) else { throw .notHex(character: Character(scalar), offset: offset) }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        self.bytes = bytes
    }

    /// Lowercase hex, two digits a byte: the form stored in `device_tokens.token` and used in APNs paths.
    public var hex: String { bytes.hexEncodedString() }

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

    private static func nibble(_ c: Unicode.Scalar) -> UInt8? {
        switch c.value {
        case 48...57: UInt8(c.value - 48)
        case 97...102: UInt8(c.value - 87)
        case 65...70: UInt8(c.value - 55)
        default: nil
        }
    }
}

/// Why text or bytes are not a device token.
public struct PushTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    static let empty = PushTokenError(description: "a device token must not be empty")
    static func oddLength(_ count: Int) -> PushTokenError {
        .init(description: "a device token has an even number of hex digits, this one has \(count)")
    }
    static func notHex(character: Character, offset: Int) -> PushTokenError {
        .init(description: "a device token is hex, but \"\(character)\" at position \(offset + 1) is not a hex digit")
    }
}

extension Data {
    /// Lowercase hex, two digits a byte.
    public func hexEncodedString() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

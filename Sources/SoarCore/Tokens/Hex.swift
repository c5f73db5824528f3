/// Hex digits: the one table Soar writes hex with (tokens, apns-ids, JSON escapes), and the one
/// reader of a digit (tokens, UUIDs, JSON's `\u` escapes).
enum Hex {
    static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A hex digit's value (either case); nil for any other byte.
    static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

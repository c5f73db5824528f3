/// Lowercase hex digits: the one table Soar writes hex with (tokens, apns-ids, JSON escapes).
enum Hex {
    static let digits: [UInt8] = Array("0123456789abcdef".utf8)
}

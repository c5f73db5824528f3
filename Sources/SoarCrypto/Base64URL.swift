import Foundation

/// Base64url (RFC 4648 section 5) without padding, as JWTs use it; byte-level, since every request
/// with a JWT decodes three parts.
private enum Base64URL {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()
}

extension Data {
    /// Base64url without padding, as JWTs use it.
    public func base64URLEncodedString() -> String {
        let alphabet = Base64URL.alphabet
        var out = [UInt8]()
        out.reserveCapacity((count * 4 + 2) / 3)
        var index = startIndex
        while index < endIndex {
            let remaining = endIndex - index
            let b0 = UInt32(self[index])
            let b1 = remaining > 1 ? UInt32(self[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(self[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            if remaining > 1 { out.append(alphabet[Int(group >> 6 & 63)]) }
            if remaining > 2 { out.append(alphabet[Int(group & 63)]) }
            index += Swift.min(3, remaining)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64url without padding (`=` is refused, as in JWTs); nil for anything else.
    public init?(base64URLEncoded text: some StringProtocol) {
        let values = Base64URL.values
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(input.count * 3 / 4)
        var group: UInt32 = 0
        var filled = 0
        for byte in input {
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            group = group << 6 | UInt32(value)
            filled += 1
            if filled == 4 {
                out.append(UInt8(group >> 16 & 0xFF))
                out.append(UInt8(group >> 8 & 0xFF))
                out.append(UInt8(group & 0xFF))
                group = 0
                filled = 0
            }
        }
        if filled == 2 {
            out.append(UInt8(group >> 4 & 0xFF))
        } else if filled == 3 {
            out.append(UInt8(group >> 10 & 0xFF))
            out.append(UInt8(group >> 2 & 0xFF))
        }
        self.init(out)
    }
}

import Foundation

extension JSONValue {
    /// Compact JSON text: no spaces, object keys sorted by their UTF-8 bytes (stable for tests
    /// and logs), `/` unescaped, numbers read by ``read(_:)-(Data)`` exactly as they were written.
    /// Non-finite doubles, which JSON cannot carry, are written as `null`.
    public var jsonData: Data {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return Data(out)
    }

    /// ``jsonData`` as a string.
    public var jsonText: String { String(decoding: jsonData, as: UTF8.self) }

    /// The JSON text as bytes.
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    /// Appends the JSON text (object keys in byte order) to `out`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): Self.writeInteger(Int64(value), to: &out)
        case .double(let value): out.append(contentsOf: (value.isFinite ? value.description : "null").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (position, item) in items.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (position, key) in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                fields[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Runs of bytes that need no escape are copied whole (most strings are one run).
    static func writeString(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { writeString(utf8: $0, to: &out) }
    }

    /// A JSON string of UTF-8 bytes the caller knows to be valid, written without making a String.
    public static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        _ = write(bytes, asciiOnly: false, to: &out)
    }

    /// The same for bytes that may not be valid UTF-8: written only when they are all ASCII (and
    /// so valid); false, with nothing written, at the first byte that is not.
    public static func writeString(ascii bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) -> Bool {
        write(bytes, asciiOnly: true, to: &out)
    }

    private static func write(_ bytes: UnsafeBufferPointer<UInt8>, asciiOnly: Bool, to out: inout [UInt8]) -> Bool {
        let mark = out.count
        out.append(UInt8(ascii: "\""))
        var start = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte >= 0x80 else { continue }
            if byte >= 0x80 {
                guard !asciiOnly else {
                    out.removeSubrange(mark...)
                    return false
                }
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            escape(byte, to: &out)
            start = index + 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        out.append(UInt8(ascii: "\""))
        return true
    }

    /// An integer's decimal digits, without a String made for them (rows write many).
    public static func writeInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        let start = out.count
        repeat {
            out.append(UInt8(48 + rest % 10))
            rest /= 10
        } while rest > 0
        out[start...].reverse()
    }

    private static func escape(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        default:
            out.append(contentsOf: "\\u00".utf8)
            out.append(Hex.digits[Int(byte >> 4)])
            out.append(Hex.digits[Int(byte & 0xF)])
        }
    }
}

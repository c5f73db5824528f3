import Foundation

/// Why bytes are not one JSON value.
public struct JSONReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, and the byte offset where it was found.
    public let description: String

    init(_ problem: String, at offset: Int) { description = "\(problem) at byte \(offset)" }
}

extension JSONValue {
    /// Reads one JSON document (RFC 8259), keeping every number as written.
    ///
    /// Integers that fit `Int` become `.int`; every other number (a fraction, an exponent, an
    /// integer too large) becomes `.number` with its text, so writing it back changes nothing. A
    /// leading UTF-8 byte order mark is skipped; duplicate keys keep the last value.
    ///
    /// - Throws: ``JSONReadError`` naming the problem and where it is.
    public static func read(_ data: Data) throws(JSONReadError) -> JSONValue {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(JSONReadError) -> JSONValue in
                var reader = JSONReader()
                return try reader.document(raw.bindMemory(to: UInt8.self))
            }
        }
        return try result.get()
    }

    /// Reads one JSON document from text.
    public static func read(_ text: String) throws(JSONReadError) -> JSONValue {
        try read(Data(text.utf8))
    }
}

/// A recursive-descent reader over UTF-8 bytes.
private struct JSONReader {
    static let maxDepth = 512
    var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    var index = 0
    var depth = 0

    mutating func document(_ input: UnsafeBufferPointer<UInt8>) throws(JSONReadError) -> JSONValue {
        bytes = input
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        let value = try self.value()
        skipSpace()
        guard index == bytes.count else { throw fail("unexpected text after the JSON value") }
        return value
    }

    func fail(_ problem: String) -> JSONReadError { JSONReadError(problem, at: index) }

    mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    mutating func value() throws(JSONReadError) -> JSONValue {
        skipSpace()
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("unexpected character")
        }
    }

    mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONReadError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
            UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count))
        else { throw fail("unexpected character") }
        index += count
        return value
    }

    mutating func enter() throws(JSONReadError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw fail("nested deeper than \(Self.maxDepth) levels") }
        index += 1
    }

    mutating func object() throws(JSONReadError) -> JSONValue {
        try enter()
        var fields: [String: JSONValue] = [:]
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(fields)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            fields[key] = try value()
            skipSpace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(fields)
            } else {
                throw fail("expected ',' or '}'")
            }
        }
    }

    mutating func array() throws(JSONReadError) -> JSONValue {
        try enter()
        var items: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            items.append(try value())
            skipSpace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(items)
            } else {
                throw fail("expected ',' or ']'")
            }
        }
    }

    mutating func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    mutating func number() throws(JSONReadError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let leading = index
        guard digits() > 0 else { throw fail("a number needs digits") }
        if bytes[leading] == UInt8(ascii: "0"), index - leading > 1 { throw JSONReadError("a number cannot start with 0", at: leading) }
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            integral = false
            guard digits() > 0 else { throw fail("a fraction needs digits") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            integral = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw fail("an exponent needs digits") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let value = Int(text), text != "-0" { return .int(value) }
        return .number(text)
    }

    mutating func string() throws(JSONReadError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try utf8(slice, at: start)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("a control character must be escaped in a string") }
            index += 1
        }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try out.withUnsafeBufferPointer { (buffer) throws(JSONReadError) in try utf8(buffer, at: start) }
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail("unexpected end of input") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): out.append(contentsOf: try unicodeEscape())
                default: throw fail("unknown escape \\\(Character(Unicode.Scalar(escaped)))")
                }
            default:
                if byte < 0x20 { throw fail("a control character must be escaped in a string") }
                out.append(byte)
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    /// The UTF-8 bytes of a `\uXXXX` escape, joining a surrogate pair.
    mutating func unicodeEscape() throws(JSONReadError) -> [UInt8] {
        var code = try hex4()
        if (0xD800...0xDBFF).contains(code) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw fail("a high surrogate must be followed by a low one")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw fail("a high surrogate must be followed by a low one") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(code) {
            throw fail("a lone low surrogate")
        }
        return Array(String(Character(Unicode.Scalar(code)!)).utf8)
    }

    mutating func hex4() throws(JSONReadError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("\\u needs four hex digits") }
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Hex.value(bytes[index]) else { throw fail("\\u needs four hex digits") }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    func utf8(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) throws(JSONReadError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw JSONReadError("invalid UTF-8 in a string", at: offset) }
        return text
    }
}

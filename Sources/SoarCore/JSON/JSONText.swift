/// JSON written straight into bytes, with object keys in the order given (``JSONValue`` sorts
/// them): for rows in their column order and for log lines, without building values first.
public struct JSONText: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// The text written, then a newline: one JSON line.
    public consuming func line() -> [UInt8] {
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Writes `"key":`; the value comes next.
    public mutating func key(_ name: String) {
        separate()
        JSONValue.writeString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A key written once (`"key":`) for many objects: rows repeat their keys.
    public struct Key: Sendable {
        let bytes: [UInt8]
        public init(_ name: String) {
            var bytes: [UInt8] = []
            JSONValue.writeString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            self.bytes = bytes
        }
    }

    public mutating func key(_ key: Key) {
        separate()
        bytes.append(contentsOf: key.bytes)
        needsComma = false
    }

    public mutating func field(_ key: Key, _ value: JSONValue) {
        self.key(key)
        self.value(value)
    }

    /// Writes a value: an array item, or the value of the key just written.
    public mutating func value(_ value: JSONValue) {
        separate()
        value.write(to: &bytes)
        needsComma = true
    }

    /// Writes a value its caller writes as JSON itself (an array item, or a key's value).
    public mutating func value(writing body: (inout [UInt8]) -> Void) {
        separate()
        body(&bytes)
        needsComma = true
    }

    public mutating func field(_ name: String, _ value: JSONValue) {
        key(name)
        self.value(value)
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}

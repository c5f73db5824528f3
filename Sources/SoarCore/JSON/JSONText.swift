/// JSON written straight into bytes, with object keys in the order given (``JSONValue`` sorts
/// them): for rows in their column order and for log lines, without building values first.
public struct JSONText: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

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

    /// Writes a value: an array item, or the value of the key just written.
    public mutating func value(_ value: JSONValue) {
        separate()
        value.write(to: &bytes)
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

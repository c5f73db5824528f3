import CNghttp2
#if canImport(Glibc)
    import Glibc
#endif

/// Header fields laid out as an `nghttp2_nv` array over one byte buffer (nghttp2 copies them).
///
/// A session keeps one and reuses its buffers from message to message, so a header block costs
/// no allocation once they have grown.
public struct HeaderBlock {
    private var bytes: [UInt8] = []
    private var spans: [(name: Int, nameLength: Int, value: Int, valueLength: Int, flags: UInt8)] = []
    private var fields: [nghttp2_nv] = []

    init() {
        bytes.reserveCapacity(1024)
        spans.reserveCapacity(16)
        fields.reserveCapacity(16)
    }

    /// Adds a field.
    ///
    /// - Parameter indexed: false for values that differ on every message (a device token's path,
    ///   an apns-id): HPACK then sends them literally without indexing, so they do not push the
    ///   values that repeat (the topic, the push type) out of the shared table.
    public mutating func add(_ name: String, _ value: String, indexed: Bool = true) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name.utf8)
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        let flags = indexed ? NGHTTP2_NV_FLAG_NONE : NGHTTP2_NV_FLAG_NO_INDEX
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart, UInt8(flags.rawValue)))
    }

    /// Runs `body` with the fields as nghttp2 takes them, then empties the block for the next message.
    mutating func submit<T>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> T) -> T {
        defer {
            bytes.removeAll(keepingCapacity: true)
            spans.removeAll(keepingCapacity: true)
        }
        var fields = self.fields
        self.fields = []
        fields.removeAll(keepingCapacity: true)
        defer { self.fields = fields }
        return bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            for span in spans {
                fields.append(nghttp2_nv(name: base + span.name, value: base + span.value, namelen: span.nameLength, valuelen: span.valueLength, flags: span.flags))
            }
            return fields.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are exactly `text`'s: a memcmp, for header names compared on every message.
    public func equals(_ text: StaticString) -> Bool {
        count == text.utf8CodeUnitCount && hasPrefix(text)
    }

    /// Whether these bytes start with `text`'s.
    public func hasPrefix(_ text: StaticString) -> Bool {
        guard count >= text.utf8CodeUnitCount else { return false }
        guard let base = baseAddress, text.utf8CodeUnitCount > 0 else { return true }
        return memcmp(base, text.utf8Start, text.utf8CodeUnitCount) == 0
    }
}

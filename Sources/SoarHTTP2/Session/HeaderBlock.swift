import CNghttp2

/// Lays header pairs out as an `nghttp2_nv` array over one byte buffer (nghttp2 copies them).
///
/// - Parameter unique: names whose values differ on every message (a device token's path, an
///   apns-id): HPACK sends them literally without indexing, so they do not push the values that
///   repeat (the provider token, the topic) out of the shared table.
public func withHeaderBlock<T>(_ headers: [(String, String)], unique: [String] = [], _ body: (UnsafePointer<nghttp2_nv>, Int) -> T) -> T {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(512)
    var spans: [(Int, Int, Int, Int, UInt8)] = []
    spans.reserveCapacity(headers.count)
    for (name, value) in headers {
        let nameStart = bytes.count
        bytes.append(contentsOf: name.utf8)
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        let flags = unique.contains(name) ? NGHTTP2_NV_FLAG_NO_INDEX : NGHTTP2_NV_FLAG_NONE
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart, UInt8(flags.rawValue)))
    }
    return bytes.withUnsafeMutableBufferPointer { buffer in
        let base = buffer.baseAddress!
        let nva = spans.map { span in
            nghttp2_nv(name: base + span.0, value: base + span.2, namelen: span.1, valuelen: span.3, flags: span.4)
        }
        return nva.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
    }
}

import CNghttp2

/// Lays header pairs out as an `nghttp2_nv` array over one byte buffer (nghttp2 copies them).
public func withHeaderBlock<T>(_ headers: [(String, String)], _ body: (UnsafePointer<nghttp2_nv>, Int) -> T) -> T {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(512)
    var spans: [(Int, Int, Int, Int)] = []
    spans.reserveCapacity(headers.count)
    for (name, value) in headers {
        let nameStart = bytes.count
        bytes.append(contentsOf: name.utf8)
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
    }
    return bytes.withUnsafeMutableBufferPointer { buffer in
        let base = buffer.baseAddress!
        let nva = spans.map { span in
            nghttp2_nv(name: base + span.0, value: base + span.2, namelen: span.1, valuelen: span.3, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        return nva.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
    }
}

import CNghttp2
import Foundation

// nghttp2's callbacks, as plain functions so no actor isolation is inherited (see CONVENTIONS).
// Each finds its connection through the session's user data.

private func connection(_ pointer: UnsafeMutableRawPointer?) -> H2Connection {
    Unmanaged<H2Connection>.fromOpaque(pointer!).takeUnretainedValue()
}

func makeServerCallbacks() -> OpaquePointer {
    var callbacks: OpaquePointer?
    nghttp2_session_callbacks_new(&callbacks)
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
    nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrame)
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onFrameSent)
    return callbacks!
}

func onBeginHeaders(session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
        frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
    else { return 0 }
    connection(user).streams[frame.pointee.hd.stream_id] = APNsRequest()
    return 0
}

func onHeader(
    session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, name: UnsafePointer<UInt8>?, nameLength: Int,
    value: UnsafePointer<UInt8>?, valueLength: Int, flags: UInt8, user: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, let name, let value else { return 0 }
    let conn = connection(user)
    let id = frame.pointee.hd.stream_id
    guard var request = conn.streams[id] else { return 0 }
    let key = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
    let text = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    conn.streams[id] = nil  // keep the request uniquely referenced while it grows
    request.headerBytes += nameLength + valueLength + 32
    switch key {
    case ":method": request.method = text
    case ":path": request.path = text
    case ":scheme", ":authority": break
    default: request.headers.append((key, text))
    }
    guard request.headerBytes <= H2Connection.maxHeaderBytes else { return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue }
    conn.streams[id] = request
    return 0
}

func onDataChunk(
    session: OpaquePointer?, flags: UInt8, streamID: Int32, data: UnsafePointer<UInt8>?, length: Int,
    user: UnsafeMutableRawPointer?
) -> Int32 {
    let conn = connection(user)
    guard let data, var request = conn.streams.removeValue(forKey: streamID) else { return 0 }
    request.bodySize += length
    if request.body.count + length <= H2Connection.maxBodyBytes { request.body.append(data, count: length) }
    conn.streams[streamID] = request
    return 0
}

func onFrame(session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    let type = frame.pointee.hd.type
    if type == UInt8(NGHTTP2_PING.rawValue), frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 {
        connection(user).server.handler.pingReceived()
        return 0
    }
    let ended = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    guard ended, type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue) else { return 0 }
    connection(user).finish(stream: frame.pointee.hd.stream_id)
    return 0
}

func onFrameSent(session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    connection(user).answered(stream: frame.pointee.hd.stream_id)
    return 0
}

func onStreamClose(session: OpaquePointer?, streamID: Int32, errorCode: UInt32, user: UnsafeMutableRawPointer?) -> Int32 {
    let conn = connection(user)
    conn.streams[streamID] = nil
    conn.responseBodies[streamID] = nil
    return 0
}

func readResponseBody(
    session: OpaquePointer?, streamID: Int32, buffer: UnsafeMutablePointer<UInt8>?, length: Int,
    flags: UnsafeMutablePointer<UInt32>?, source: UnsafeMutablePointer<nghttp2_data_source>?, user: UnsafeMutableRawPointer?
) -> Int {
    let conn = connection(user)
    guard let buffer, let flags, let (data, offset) = conn.responseBodies[streamID] else {
        flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        return 0
    }
    let count = min(length, data.count - offset)
    data.withUnsafeBytes { raw in
        buffer.update(from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, count: count)
    }
    if offset + count >= data.count {
        flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        conn.responseBodies[streamID] = nil
    } else {
        conn.responseBodies[streamID] = (data, offset + count)
    }
    return count
}

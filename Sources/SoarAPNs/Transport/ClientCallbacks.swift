import CNghttp2
import Foundation

// nghttp2's client callbacks, as plain functions (see CONVENTIONS). Each finds its connection
// through the session's user data.

private func connection(_ pointer: UnsafeMutableRawPointer?) -> ClientConnection {
    Unmanaged<ClientConnection>.fromOpaque(pointer!).takeUnretainedValue()
}

func makeClientCallbacks() -> OpaquePointer {
    var callbacks: OpaquePointer?
    nghttp2_session_callbacks_new(&callbacks)
    nghttp2_session_callbacks_set_on_header_callback(callbacks, onResponseHeader)
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onResponseData)
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onClientFrame)
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onClientFrameSent)
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onClientStreamClose)
    return callbacks!
}

/// Keeps `:status` and the `apns-*` headers; APNs sends nothing else that matters.
func onResponseHeader(
    session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, name: UnsafePointer<UInt8>?, nameLength: Int,
    value: UnsafePointer<UInt8>?, valueLength: Int, flags: UInt8, user: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, let name, let value, let stream = connection(user).streams[frame.pointee.hd.stream_id] else { return 0 }
    let key = UnsafeBufferPointer(start: name, count: nameLength)
    let text = UnsafeBufferPointer(start: value, count: valueLength)
    if nameLength == 7, key.elementsEqual(":status".utf8) {
        stream.status = Int(String(decoding: text, as: UTF8.self)) ?? 0
    } else if nameLength > 5, key.starts(with: "apns-".utf8) {
        stream.headers[String(decoding: key, as: UTF8.self)] = String(decoding: text, as: UTF8.self)
    }
    return 0
}

func onResponseData(
    session: OpaquePointer?, flags: UInt8, streamID: Int32, data: UnsafePointer<UInt8>?, length: Int, user: UnsafeMutableRawPointer?
) -> Int32 {
    guard let data, let stream = connection(user).streams[streamID], stream.body.count + length <= ClientStream.maxBody else { return 0 }
    stream.body.append(data, count: length)
    return 0
}

func onClientFrame(session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    let conn = connection(user)
    let isAck = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
    switch UInt32(frame.pointee.hd.type) {
    case NGHTTP2_SETTINGS.rawValue where !isAck: conn.settingsReceived = true
    case NGHTTP2_GOAWAY.rawValue: conn.goingAway = true
    case NGHTTP2_PING.rawValue where isAck: conn.pingSentAt = nil
    default: break
    }
    return 0
}

func onClientFrameSent(session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
    connection(user).streams[frame.pointee.hd.stream_id]?.sent = true
    return 0
}

/// A stream ended: with an answer, refused before the server processed it (after GOAWAY or
/// over its limit: sent again elsewhere), or reset.
func onClientStreamClose(session: OpaquePointer?, streamID: Int32, errorCode: UInt32, user: UnsafeMutableRawPointer?) -> Int32 {
    let conn = connection(user)
    guard let stream = conn.streams.removeValue(forKey: streamID) else { return 0 }
    if stream.status >= 200 {
        // A final status counts even if the upload was then reset (RFC 9113, 8.1).
        stream.completion(stream.result)
    } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
        conn.transport.requeue(stream)
    } else {
        stream.completion(.failure("the server reset the stream (\(String(cString: nghttp2_http2_strerror(errorCode))))"))
    }
    return 0
}

func readRequestBody(
    session: OpaquePointer?, streamID: Int32, buffer: UnsafeMutablePointer<UInt8>?, length: Int,
    flags: UnsafeMutablePointer<UInt32>?, source: UnsafeMutablePointer<nghttp2_data_source>?, user: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let flags, let stream = connection(user).streams[streamID] else {
        flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        return 0
    }
    let body = stream.request.body
    let count = min(length, body.count - stream.bodyOffset)
    body.withUnsafeBytes { raw in
        if count > 0 { buffer.update(from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + stream.bodyOffset, count: count) }
    }
    stream.bodyOffset += count
    if stream.bodyOffset >= body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
    return count
}

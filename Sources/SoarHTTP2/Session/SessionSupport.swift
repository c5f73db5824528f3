import CNghttp2
import Foundation

// What both nghttp2 sessions, client and server, are made of.

/// Turns nghttp2's negative-is-failure convention into a throw.
@discardableResult
func nghttp2Call(_ name: String, _ result: Int32) throws(H2Error) -> Int32 {
    guard result >= 0 else { throw H2Error(call: name, code: result) }
    return result
}

/// One SETTINGS entry a session announces.
public struct H2Setting: Sendable, Equatable {
    let id: Int32
    let value: UInt32

    public static func maxConcurrentStreams(_ value: UInt32) -> H2Setting {
        H2Setting(id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: value)
    }
    public static func initialWindowSize(_ value: UInt32) -> H2Setting {
        H2Setting(id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: value)
    }
    public static func maxHeaderListSize(_ value: UInt32) -> H2Setting {
        H2Setting(id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: value)
    }
    public static let noServerPush = H2Setting(id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)
}

/// Makes an nghttp2 session with the callbacks `configure` sets; the caller sets the user data
/// once its object is whole (nghttp2 calls nothing before the first receive or send).
func makeSession(server: Bool, _ configure: (OpaquePointer?) -> Void) throws(H2Error) -> OpaquePointer {
    var callbacks: OpaquePointer?
    try nghttp2Call("nghttp2_session_callbacks_new", nghttp2_session_callbacks_new(&callbacks))
    defer { nghttp2_session_callbacks_del(callbacks) }  // the session keeps its own copy
    configure(callbacks)
    var session: OpaquePointer?
    if server {
        try nghttp2Call("nghttp2_session_server_new", nghttp2_session_server_new(&session, callbacks, nil))
    } else {
        try nghttp2Call("nghttp2_session_client_new", nghttp2_session_client_new(&session, callbacks, nil))
    }
    return session!
}

/// Submits a SETTINGS frame.
func submitSettings(_ session: OpaquePointer, _ settings: [H2Setting]) throws(H2Error) {
    let entries = settings.map { nghttp2_settings_entry(settings_id: $0.id, value: $0.value) }
    try nghttp2Call("nghttp2_submit_settings", nghttp2_submit_settings(session, 0, entries, entries.count))
}

/// Hands the next chunk of a stream's body to nghttp2 from `bodies`, forgetting it once sent:
/// the data-source callback of both sessions.
func readBody(
    _ bodies: inout [Int32: OutgoingBody], stream: Int32, into buffer: UnsafeMutablePointer<UInt8>?, length: Int,
    flags: UnsafeMutablePointer<UInt32>?
) -> Int {
    guard let buffer, let flags, var body = bodies.removeValue(forKey: stream) else {
        flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        return 0
    }
    let count = body.read(into: buffer, length: length, flags: flags)
    if flags.pointee & NGHTTP2_DATA_FLAG_EOF.rawValue == 0 { bodies[stream] = body }
    return count
}

/// A message body being handed to nghttp2 in chunks.
struct OutgoingBody {
    let data: Data
    var offset = 0

    /// Copies the next chunk into nghttp2's buffer; sets EOF once all has gone.
    mutating func read(into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        let count = min(length, data.count - offset)
        if count > 0 {
            data.withUnsafeBytes { raw in
                buffer.update(from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, count: count)
            }
        }
        offset += count
        if offset >= data.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}

extension UnsafePointer<nghttp2_frame> {
    var type: UInt32 { UInt32(pointee.hd.type) }
    var streamID: Int32 { pointee.hd.stream_id }
    func has(_ flag: nghttp2_flag) -> Bool { pointee.hd.flags & UInt8(flag.rawValue) != 0 }
}

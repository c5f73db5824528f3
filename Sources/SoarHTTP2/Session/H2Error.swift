import CNghttp2
import Foundation

/// An nghttp2 call that failed, with nghttp2's words for it.
public struct H2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call, such as `nghttp2_submit_request`.
    public let call: String
    /// nghttp2's (negative) error code.
    public let code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    public var description: String { "\(call): \(String(cString: nghttp2_strerror(code)))" }

    /// The session has used every stream id it may (2^31): a new connection is needed.
    public var streamIDsExhausted: Bool { code == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue }
}

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

/// Submits a SETTINGS frame.
func submitSettings(_ session: OpaquePointer, _ settings: [H2Setting]) throws(H2Error) {
    let entries = settings.map { nghttp2_settings_entry(settings_id: $0.id, value: $0.value) }
    try nghttp2Call("nghttp2_submit_settings", nghttp2_submit_settings(session, 0, entries, entries.count))
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

extension H2Error {
    /// The name of an HTTP/2 error code from RST_STREAM or GOAWAY, such as `INTERNAL_ERROR`.
    public static func name(ofStreamError code: UInt32) -> String {
        String(cString: nghttp2_http2_strerror(code))
    }
}

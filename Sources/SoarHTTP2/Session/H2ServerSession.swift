import CNghttp2
import Foundation
import SoarCrypto

/// What an HTTP/2 server session reports, as Swift values, while it reads.
public protocol H2ServerSessionDelegate: AnyObject {
    /// A request arrived whole (headers and body).
    func requestReceived(_ request: H2Request, stream: Int32)
    /// A PING (not an ACK) came; nghttp2 answers it.
    func pingReceived()
    /// The HEADERS of our response on `stream` left.
    func responseSent(stream: Int32)
}

/// An nghttp2 server session over an ``H2Wire``: requests come to the delegate whole, responses
/// go out with ``respond(stream:status:headers:body:)``.
///
/// Used on one event-loop thread only.
public final class H2ServerSession {
    public let wire: H2Wire
    unowned let delegate: any H2ServerSessionDelegate
    /// The request whose header block is arriving: HTTP/2 sends one header block at a time, so
    /// headers collect here without a dictionary lookup each.
    var incoming: (stream: Int32, request: H2Request, headerBytes: Int)?
    /// Requests whose headers are complete and whose body is still arriving.
    var requests: [Int32: H2Request] = [:]
    var bodies: [Int32: OutgoingBody] = [:]
    /// Reused for every response's headers.
    var headerBlock = HeaderBlock()
    /// Requests with larger headers are reset.
    public let maxHeaderBytes: Int
    /// Bodies are kept up to this size; past it only the size is counted.
    public let maxBodyBytes: Int

    /// Starts a session on an accepted socket and queues our SETTINGS.
    ///
    /// - Throws: ``H2Error`` when nghttp2 cannot make the session.
    public init(fd: Int32, tls: TLSSession?, settings: [H2Setting], maxHeaderBytes: Int = 16 * 1024, maxBodyBytes: Int = 64 * 1024,
                delegate: any H2ServerSessionDelegate) throws(H2Error) {
        self.delegate = delegate
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        let session = try makeSession(server: true) { callbacks in
            nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, serverOnBeginHeaders)
            nghttp2_session_callbacks_set_on_header_callback(callbacks, serverOnHeader)
            nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, serverOnData)
            nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, serverOnFrame)
            nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, serverOnFrameSent)
            nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, serverOnStreamClose)
        }
        wire = H2Wire(fd: fd, tls: tls, session: session)
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        try submitSettings(session, settings + [.maxHeaderListSize(UInt32(maxHeaderBytes))])
    }

    deinit { nghttp2_session_del(wire.session) }

    /// Queues a response; a body goes out after the headers, in DATA frames. A stream the client
    /// has already closed (a late answer) is skipped.
    public func respond(stream: Int32, status: Int, headers: [(String, String)], body: Data = Data()) throws(H2Error) {
        guard nghttp2_session_find_stream(wire.session, stream) != nil else { return }
        headerBlock.add(":status", String(status))
        for (name, value) in headers { headerBlock.add(name, value) }
        if !body.isEmpty { headerBlock.add("content-length", String(body.count)) }
        let session = wire.session
        let result: Int32 = headerBlock.submit { nva, count in
            if body.isEmpty { return nghttp2_submit_response(session, stream, nva, count, nil) }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: serverReadBody)
            return nghttp2_submit_response(session, stream, nva, count, &provider)
        }
        try nghttp2Call("nghttp2_submit_response", result)
        if !body.isEmpty { bodies[stream] = OutgoingBody(data: body) }
    }

    /// Announces new SETTINGS, such as a raised stream limit.
    public func announce(_ settings: [H2Setting]) throws(H2Error) {
        try submitSettings(wire.session, settings)
    }

    /// Sends GOAWAY: streams up to `lastStreamID` will be answered, later ones are not handled.
    public func goAway(lastStreamID: Int32) throws(H2Error) {
        try nghttp2Call("nghttp2_submit_goaway", nghttp2_submit_goaway(wire.session, 0, lastStreamID, NGHTTP2_NO_ERROR.rawValue, nil, 0))
    }

    /// Refuses a stream unprocessed (RST_STREAM REFUSED_STREAM): the client may send it again.
    public func refuse(stream: Int32) throws(H2Error) {
        try nghttp2Call("nghttp2_submit_rst_stream", nghttp2_submit_rst_stream(wire.session, 0, stream, NGHTTP2_REFUSED_STREAM.rawValue))
    }

    /// Ends the session with GOAWAY PROTOCOL_ERROR, after the peer broke the protocol.
    public func terminateForProtocolError() throws(H2Error) {
        try nghttp2Call("nghttp2_session_terminate_session", nghttp2_session_terminate_session(wire.session, NGHTTP2_PROTOCOL_ERROR.rawValue))
    }
}

// nghttp2's callbacks, as plain functions so no actor isolation is inherited. Each finds its
// session through the user data.

private func serverSession(_ pointer: UnsafeMutableRawPointer?) -> H2ServerSession {
    Unmanaged<H2ServerSession>.fromOpaque(pointer!).takeUnretainedValue()
}

private func serverOnBeginHeaders(session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.type == NGHTTP2_HEADERS.rawValue, frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
    serverSession(user).incoming = (frame.streamID, H2Request(), 0)
    return 0
}

private func serverOnHeader(
    session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, name: UnsafePointer<UInt8>?, nameLength: Int,
    value: UnsafePointer<UInt8>?, valueLength: Int, flags: UInt8, user: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, let name, let value else { return 0 }
    let owner = serverSession(user)
    // Mutated in place through the optional: copying the request out and back costs a retain and
    // a release of every field, per header.
    guard owner.incoming?.stream == frame.streamID else { return 0 }
    owner.incoming!.headerBytes += nameLength + valueLength + 32
    guard owner.incoming!.headerBytes <= owner.maxHeaderBytes else { return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue }
    let key = UnsafeBufferPointer(start: name, count: nameLength)
    let text = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
    if key.first != UInt8(ascii: ":") {
        owner.incoming!.request.headers.append((String(decoding: key, as: UTF8.self), text))
    } else if key.equals(":method") {
        owner.incoming!.request.method = text
    } else if key.equals(":path") {
        owner.incoming!.request.path = text
    }
    return 0
}

private func serverOnData(
    session: OpaquePointer?, flags: UInt8, streamID: Int32, data: UnsafePointer<UInt8>?, length: Int, user: UnsafeMutableRawPointer?
) -> Int32 {
    let owner = serverSession(user)
    guard let data, var request = owner.requests.removeValue(forKey: streamID) else { return 0 }
    request.bodySize += length
    if request.body.count + length <= owner.maxBodyBytes { request.body.append(data, count: length) }
    owner.requests[streamID] = request
    return 0
}

private func serverOnFrame(session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    let owner = serverSession(user)
    guard !owner.wire.isClosed else { return 0 }
    if frame.type == NGHTTP2_PING.rawValue, !frame.has(NGHTTP2_FLAG_ACK) {
        owner.delegate.pingReceived()
        return 0
    }
    let stream = frame.streamID
    let isHeaders = frame.type == NGHTTP2_HEADERS.rawValue
    if isHeaders, owner.incoming?.stream == stream {
        owner.requests[stream] = owner.incoming.take()!.request
    }
    // The request ends with the END_STREAM flag on its headers (no body), its last DATA, or trailers.
    guard frame.has(NGHTTP2_FLAG_END_STREAM), isHeaders || frame.type == NGHTTP2_DATA.rawValue,
        let complete = owner.requests.removeValue(forKey: stream)
    else { return 0 }
    owner.delegate.requestReceived(complete, stream: stream)
    return 0
}

private func serverOnFrameSent(session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.type == NGHTTP2_HEADERS.rawValue else { return 0 }
    let owner = serverSession(user)
    if !owner.wire.isClosed { owner.delegate.responseSent(stream: frame.streamID) }
    return 0
}

private func serverOnStreamClose(session: OpaquePointer?, streamID: Int32, errorCode: UInt32, user: UnsafeMutableRawPointer?) -> Int32 {
    let owner = serverSession(user)
    owner.requests[streamID] = nil
    owner.bodies[streamID] = nil
    if owner.incoming?.stream == streamID { owner.incoming = nil }
    return 0
}

private func serverReadBody(
    session: OpaquePointer?, streamID: Int32, buffer: UnsafeMutablePointer<UInt8>?, length: Int,
    flags: UnsafeMutablePointer<UInt32>?, source: UnsafeMutablePointer<nghttp2_data_source>?, user: UnsafeMutableRawPointer?
) -> Int {
    readBody(&serverSession(user).bodies, stream: streamID, into: buffer, length: length, flags: flags)
}

import CNghttp2
import Foundation
import SoarCrypto

/// What an HTTP/2 client session reports, as Swift values, while it reads.
public protocol H2ClientSessionDelegate: AnyObject {
    /// The server's first SETTINGS came: its stream limit is known.
    func sessionReceivedSettings()
    /// A request's HEADERS left the process (the socket took them): from now on the server may
    /// have acted on it.
    func requestSent(stream: Int32)
    /// A stream ended. `response` is set when a final status came (it counts even if the upload
    /// was then reset, RFC 9113 8.1); otherwise `refused` says whether the server refused it
    /// unprocessed (REFUSED_STREAM, or past a GOAWAY's last stream), so it may go again elsewhere.
    func streamEnded(stream: Int32, response: H2Response?, refused: Bool, errorCode: UInt32)
    /// GOAWAY: no new streams on this connection.
    func goawayReceived(lastStreamID: Int32)
    /// The answer to our PING came.
    func pingAcknowledged()
}

/// An nghttp2 client session over an ``H2Wire``: requests go in as headers and bodies, responses
/// come back to the delegate whole.
///
/// Used on one event-loop thread only.
public final class H2ClientSession {
    public let wire: H2Wire
    unowned let delegate: any H2ClientSessionDelegate
    var responses: [Int32: H2Response] = [:]
    var bodies: [Int32: OutgoingBody] = [:]
    /// Reused for every request's headers.
    var headerBlock = HeaderBlock()
    /// Requests whose HEADERS nghttp2 has written out, with where they end in the wire's bytes.
    var headersWritten: [(stream: Int32, end: UInt64)] = []
    /// Response bodies are kept up to this size.
    let maxResponseBody: Int
    /// Which response headers are kept, by name: no String is made for the rest (`server`,
    /// `date` and the like).
    let keepsHeader: (UnsafeBufferPointer<UInt8>) -> Bool

    /// Starts a session on a connected socket and queues our SETTINGS.
    ///
    /// - Throws: ``H2Error`` when nghttp2 cannot make the session.
    ///
    /// - Parameter keepingHeaders: which response headers to keep, by name (all by default).
    public init(
        fd: Int32, tls: TLSSession?, settings: [H2Setting], maxResponseBody: Int = 64 * 1024,
        keepingHeaders: @escaping (UnsafeBufferPointer<UInt8>) -> Bool = { _ in true }, delegate: any H2ClientSessionDelegate
    ) throws(H2Error) {
        self.delegate = delegate
        self.maxResponseBody = maxResponseBody
        keepsHeader = keepingHeaders
        let session = try makeSession(server: false) { callbacks in
            nghttp2_session_callbacks_set_on_header_callback(callbacks, clientOnHeader)
            nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, clientOnData)
            nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, clientOnFrame)
            nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, clientOnFrameSent)
            nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, clientOnStreamClose)
        }
        wire = H2Wire(fd: fd, tls: tls, session: session)
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        try submitSettings(session, settings)
    }

    deinit { nghttp2_session_del(wire.session) }

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS (unlimited until its SETTINGS came).
    public var serverStreamLimit: Int {
        Int(nghttp2_session_get_remote_settings(wire.session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Queues a request; it leaves with the next ``send()``.
    ///
    /// - Parameter headers: fills the request's header block (pseudo-headers first).
    /// - Returns: the stream id.
    /// - Throws: ``H2Error``; ``H2Error/takesNoNewStreams`` means this connection can take no more.
    public func request(body: Data, headers: (inout HeaderBlock) -> Void) throws(H2Error) -> Int32 {
        // After a GOAWAY (the peer's, or ours on a protocol error) nghttp2 would take the request
        // and then refuse its stream while sending: said here instead, so it goes elsewhere.
        guard nghttp2_session_check_request_allowed(wire.session) != 0 else {
            throw H2Error(call: "nghttp2_submit_request", code: NGHTTP2_ERR_START_STREAM_NOT_ALLOWED.rawValue)
        }
        headers(&headerBlock)
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: clientReadBody)
        let session = wire.session
        let stream = headerBlock.submit { nva, count in nghttp2_submit_request(session, nil, nva, count, &provider, nil) }
        try nghttp2Call("nghttp2_submit_request", stream)
        bodies[stream] = OutgoingBody(data: body)
        responses[stream] = H2Response()
        return stream
    }

    /// Writes what the session has to say (see ``H2Wire/send()``) and tells the delegate which
    /// requests have now left the process.
    ///
    /// - Returns: nil while the connection lives.
    public func send() -> H2Wire.End? {
        let end = wire.send()
        if !headersWritten.isEmpty {
            let written = wire.bytesWritten
            let left = headersWritten.prefix { $0.end <= written }
            headersWritten.removeFirst(left.count)
            for entry in left where !wire.isClosed { delegate.requestSent(stream: entry.stream) }
        }
        return end
    }

    /// Queues a PING.
    public func ping() throws(H2Error) {
        try nghttp2Call("nghttp2_submit_ping", nghttp2_submit_ping(wire.session, 0, nil))
    }
}

// nghttp2's callbacks, as plain functions so no actor isolation is inherited. Each finds its
// session through the user data.

private func clientSession(_ pointer: UnsafeMutableRawPointer?) -> H2ClientSession {
    Unmanaged<H2ClientSession>.fromOpaque(pointer!).takeUnretainedValue()
}

private func clientOnHeader(
    session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, name: UnsafePointer<UInt8>?, nameLength: Int,
    value: UnsafePointer<UInt8>?, valueLength: Int, flags: UInt8, user: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, let name, let value else { return 0 }
    let owner = clientSession(user)
    let id = frame.streamID
    let key = UnsafeBufferPointer(start: name, count: nameLength)
    let text = UnsafeBufferPointer(start: value, count: valueLength)
    // Changed in place through the dictionary's optional: no copy of the response per header.
    if key.equals(":status") {
        let status = text.reduce(0) { $1 >= 48 && $1 <= 57 ? $0 * 10 + Int($1 - 48) : -1_000 }
        // Interim 1xx answers are skipped; the final status is what counts.
        if status >= 200 { owner.responses[id]?.status = status }
    } else if key.first != UInt8(ascii: ":"), owner.keepsHeader(key) {
        owner.responses[id]?.headers.append((String(decoding: key, as: UTF8.self), String(decoding: text, as: UTF8.self)))
    }
    return 0
}

private func clientOnData(
    session: OpaquePointer?, flags: UInt8, streamID: Int32, data: UnsafePointer<UInt8>?, length: Int, user: UnsafeMutableRawPointer?
) -> Int32 {
    let owner = clientSession(user)
    guard let data, let count = owner.responses[streamID]?.body.count, count + length <= owner.maxResponseBody else { return 0 }
    owner.responses[streamID]?.body.append(data, count: length)
    return 0
}

private func clientOnFrame(session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame else { return 0 }
    let owner = clientSession(user)
    guard !owner.wire.isClosed else { return 0 }
    switch frame.type {
    case NGHTTP2_SETTINGS.rawValue where !frame.has(NGHTTP2_FLAG_ACK): owner.delegate.sessionReceivedSettings()
    case NGHTTP2_GOAWAY.rawValue: owner.delegate.goawayReceived(lastStreamID: frame.pointee.goaway.last_stream_id)
    case NGHTTP2_PING.rawValue where frame.has(NGHTTP2_FLAG_ACK): owner.delegate.pingAcknowledged()
    default: break
    }
    return 0
}

private func clientOnFrameSent(session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, user: UnsafeMutableRawPointer?) -> Int32 {
    guard let frame, frame.type == NGHTTP2_HEADERS.rawValue else { return 0 }
    // Called as nghttp2 moves on past the frame, whose bytes are the last the wire has queued.
    let owner = clientSession(user)
    owner.headersWritten.append((frame.streamID, owner.wire.bytesQueued))
    return 0
}

private func clientOnStreamClose(session: OpaquePointer?, streamID: Int32, errorCode: UInt32, user: UnsafeMutableRawPointer?) -> Int32 {
    let owner = clientSession(user)
    owner.bodies[streamID] = nil
    guard let response = owner.responses.removeValue(forKey: streamID), !owner.wire.isClosed else { return 0 }
    let answered = response.status >= 200
    owner.delegate.streamEnded(
        stream: streamID, response: answered ? response : nil, refused: !answered && errorCode == NGHTTP2_REFUSED_STREAM.rawValue,
        errorCode: errorCode)
    return 0
}

private func clientReadBody(
    session: OpaquePointer?, streamID: Int32, buffer: UnsafeMutablePointer<UInt8>?, length: Int,
    flags: UnsafeMutablePointer<UInt32>?, source: UnsafeMutablePointer<nghttp2_data_source>?, user: UnsafeMutableRawPointer?
) -> Int {
    readBody(&clientSession(user).bodies, stream: streamID, into: buffer, length: length, flags: flags)
}

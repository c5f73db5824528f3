import CNghttp2
import Foundation
import SoarCrypto
import SoarHTTP
import SoarHTTP2

/// One client connection: a socket, optional TLS, and an nghttp2 server session.
///
/// Lives on the event loop's thread only.
final class H2Connection {
    let id: UInt64
    let fd: Int32
    let tls: TLSSession?
    unowned let server: H2Server
    /// The socket and the session, once started.
    private(set) var wire: H2Wire?
    var session: OpaquePointer? { wire?.session }
    var handshaking: Bool
    var streams: [Int32: APNsRequest] = [:]
    var responseBodies: [Int32: (data: Data, offset: Int)] = [:]
    var auth = ConnectionAuth()
    var streamsSeen = 0
    var limitRaised = false
    var goingAway = false
    /// The last stream GOAWAY promised to handle; later ones are refused, never recorded.
    var lastStreamHandled = Int32.max
    /// Recorded deliveries whose answer has not yet left: lost if the connection ends first.
    var unanswered: Set<Int32> = []
    var closed = false
    var wantsWrite = false

    /// Headers larger than this reset the stream.
    static let maxHeaderBytes = 16 * 1024
    /// Bodies are kept up to this size; past it only the size is counted.
    static let maxBodyBytes = 64 * 1024

    init(id: UInt64, fd: Int32, tls: TLSSession?, server: H2Server) {
        self.id = id
        self.fd = fd
        self.tls = tls
        self.server = server
        self.handshaking = tls != nil
    }

    /// Creates the nghttp2 session and queues the server's SETTINGS: few streams until the first
    /// accepted request, as APNs does.
    func start() -> Bool {
        var created: OpaquePointer?
        guard nghttp2_session_server_new(&created, server.callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0, let created else {
            return false
        }
        wire = H2Wire(fd: fd, tls: tls, session: created)
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: server.handler.initialStreamLimit),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: UInt32(Self.maxHeaderBytes)),
        ]
        return nghttp2_submit_settings(created, 0, &settings, settings.count) == 0
    }

    /// A response's HEADERS left for the client.
    func answered(stream id: Int32) {
        if unanswered.remove(id) != nil { server.handler.deliveryAnswered() }
    }

    deinit {
        if let session { nghttp2_session_del(session) }
    }

    /// A request is complete: validate it and answer, now or later.
    ///
    /// Nothing is handled once the connection is closed (requests read in the same chunk as the
    /// one that dropped it) or past the last stream a GOAWAY announced: a client sends those
    /// again elsewhere, so handling them would deliver twice.
    func finish(stream id: Int32) {
        guard !closed, let session, let request = streams[id] else { return }
        guard id <= lastStreamHandled else {
            nghttp2_submit_rst_stream(session, 0, id, NGHTTP2_REFUSED_STREAM.rawValue)
            return
        }
        streamsSeen += 1
        let action = server.handler.handle(request, auth: &auth, number: streamsSeen)
        if action.drop {
            server.close(self)
            return
        }
        if action.recorded { unanswered.insert(id) }
        if let goawayAfter = server.handler.goawayAfter, streamsSeen >= goawayAfter, !goingAway {
            goingAway = true
            lastStreamHandled = id
            nghttp2_submit_goaway(session, 0, id, NGHTTP2_NO_ERROR.rawValue, nil, 0)
        }
        guard let response = action.response else { return }
        if action.delayMilliseconds > 0 {
            server.schedule(response, connection: self, stream: id, after: action.delayMilliseconds)
        } else {
            respond(response, stream: id)
        }
    }

    /// Submits a response; a 200 on the first request raises the stream limit.
    func respond(_ response: HTTPResponse, stream id: Int32) {
        guard !closed, let session else { return }
        var headers = [(":status", String(response.status))] + response.headers
        if !response.body.isEmpty { headers.append(("content-length", String(response.body.count))) }
        let submitted: Int32 = withHeaderBlock(headers) { nva, count in
            if response.body.isEmpty { return nghttp2_submit_response(session, id, nva, count, nil) }
            responseBodies[id] = (response.body, 0)
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readResponseBody)
            return nghttp2_submit_response(session, id, nva, count, &provider)
        }
        if submitted != 0 { responseBodies[id] = nil }
        if response.status == 200, !limitRaised {
            limitRaised = true
            var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: server.handler.raisedStreamLimit)]
            nghttp2_submit_settings(session, 0, &settings, settings.count)
        }
    }
}

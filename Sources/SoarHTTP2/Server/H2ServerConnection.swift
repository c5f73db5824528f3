import Foundation
import SoarCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// One client connection: a socket, optional TLS, and a server session. It applies the handler's
/// connection rules (a stream limit raised after the first 200, GOAWAY after N streams, drops).
///
/// Lives on the loop's thread only.
final class H2ServerConnection<Handler: H2RequestHandler>: H2ServerSessionDelegate {
    let id: UInt64
    let fd: Int32
    let tls: TLSSession?
    unowned let server: H2Server<Handler>
    private(set) var session: H2ServerSession!
    var handshaking: Bool
    var state = Handler.ConnectionState()
    private var streamsSeen = 0
    private var limitRaised = false
    private var goingAway = false
    /// The last stream GOAWAY promised to handle; later ones are refused, never recorded.
    private var lastStreamHandled = Int32.max
    /// The highest stream handled so far: requests complete out of stream order, so a GOAWAY must
    /// name this one, or a higher stream already handled would be sent again by the client.
    private var highestHandled: Int32 = 0
    /// Counted answers not yet handed to the kernel: lost if the connection ends first.
    private(set) var unanswered: Set<Int32> = []
    /// Of those, the ones whose answer nghttp2 has written into the outgoing bytes.
    private var answersWritten: [Int32] = []
    private(set) var closed = false

    init(id: UInt64, fd: Int32, tls: TLSSession?, server: H2Server<Handler>) throws(H2Error) {
        self.id = id
        self.fd = fd
        self.tls = tls
        self.server = server
        handshaking = tls != nil
        // Few streams until the first 200 (as APNs does).
        session = try H2ServerSession(fd: fd, tls: tls, settings: [.maxConcurrentStreams(server.handler.initialStreamLimit)], delegate: self)
    }

    /// Marks the connection closed and closes its socket, unless the server keeps it to linger.
    func close(keepingSocket: Bool = false) {
        guard !closed else { return }
        closed = true
        session.wire.isClosed = true
        if !keepingSocket { Glibc.close(fd) }
    }

    // MARK: - H2ServerSessionDelegate

    /// A request is complete: validate it and answer, now or later.
    ///
    /// Nothing is handled once the connection is closed (requests read in the same chunk as the
    /// one that dropped it) or past the last stream a GOAWAY announced: a client sends those
    /// again elsewhere, so handling them would deliver twice.
    func requestReceived(_ request: H2Request, stream: Int32) {
        guard !closed else { return }
        guard stream <= lastStreamHandled else {
            try? session.refuse(stream: stream)  // the client treats it as refused either way once GOAWAY arrives
            return
        }
        streamsSeen += 1
        highestHandled = max(highestHandled, stream)
        let action = server.handler.handle(request, state: &state, number: streamsSeen)
        if action.drop {
            server.close(self)
            return
        }
        if action.counted { unanswered.insert(stream) }
        if let goawayAfter = action.goawayAfter, streamsSeen >= goawayAfter, !goingAway {
            goingAway = true
            lastStreamHandled = highestHandled
            do {
                try session.goAway(lastStreamID: highestHandled)
            } catch {
                server.close(self)
                return
            }
        }
        guard let response = action.response else { return }
        if action.delayMilliseconds > 0 {
            server.schedule(response, connection: self, stream: stream, after: action.delayMilliseconds)
        } else {
            respond(response, stream: stream)
        }
    }

    func pingReceived() { server.handler.pingReceived() }

    func responseSent(stream: Int32) {
        if unanswered.contains(stream) { answersWritten.append(stream) }
    }

    /// Every byte written so far has reached the socket: those answers have left.
    func outputDelivered() {
        for stream in answersWritten where unanswered.remove(stream) != nil { server.handler.answerSent() }
        answersWritten.removeAll(keepingCapacity: true)
    }

    /// Submits a response; a 200 on the first request raises the stream limit.
    func respond(_ response: H2Response, stream: Int32) {
        guard !closed else { return }
        do {
            try session.respond(stream: stream, status: response.status, headers: response.headers, body: response.body)
            if response.status == 200, !limitRaised {
                limitRaised = true
                try session.announce([.maxConcurrentStreams(server.handler.raisedStreamLimit)])
            }
        } catch {
            server.close(self)
        }
    }
}

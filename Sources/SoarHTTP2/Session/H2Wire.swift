import CNghttp2
import SoarCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// A connected non-blocking socket, with or without TLS, carrying one nghttp2 session: what
/// arrives is fed to the session, and what the session has to say leaves in as few writes as the
/// socket allows. The HTTP/2 client and the emulator's server both run on it.
///
/// Used on one event-loop thread only. The session that made it frees the nghttp2 session; the
/// connection that owns the socket closes it.
public final class H2Wire {
    /// Why a wire stopped carrying anything.
    public enum End: Equatable {
        /// The peer closed the connection.
        case closed
        /// The socket or TLS failed.
        case failed(String)
        /// nghttp2 found the peer breaking the protocol; it has queued a GOAWAY where it could.
        case protocolError(String)
    }

    public let fd: Int32
    public let tls: TLSSession?
    let session: OpaquePointer
    private var outbound: [UInt8] = []
    /// Bytes nghttp2 has handed over, and bytes the socket has taken, since the start: a frame
    /// has left the process once `bytesWritten` passes where it ended in `bytesQueued`.
    public private(set) var bytesQueued: UInt64 = 0
    public private(set) var bytesWritten: UInt64 = 0
    /// Set by the owner when it closes the socket, possibly from a callback in the middle of
    /// `receive`: nothing more is read or written.
    public var isClosed = false

    init(fd: Int32, tls: TLSSession?, session: OpaquePointer) {
        self.fd = fd
        self.tls = tls
        self.session = session
    }

    /// Bytes are waiting for the socket to take them: the loop should watch it for writability.
    public var hasPendingOutput: Bool { !outbound.isEmpty }

    /// Reads until the socket would block, handing each chunk to nghttp2 (whose callbacks run
    /// meanwhile). `buffer` is the loop's scratch space. Returns nil while the connection lives.
    public func receive(using buffer: inout [UInt8]) -> End? {
        while !isClosed {
            let step: TLSSession.Step = buffer.withUnsafeMutableBytes { raw in
                if let tls { return tls.read(into: raw) }
                let n = recv(fd, raw.baseAddress, raw.count, 0)
                if n > 0 { return .done(n) }
                if n == 0 { return .closed }
                return errno == EAGAIN || errno == EWOULDBLOCK ? .wantRead : .failed(String(cString: strerror(errno)))
            }
            switch step {
            case .done(let count):
                let consumed = buffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, count) }
                if consumed < 0 { return .protocolError(String(cString: nghttp2_strerror(Int32(consumed)))) }
            case .wantRead, .wantWrite: return nil
            case .closed: return .closed
            case .failed(let reason): return .failed(reason)
            }
        }
        return .closed
    }

    /// Takes all nghttp2 has to send and writes what the socket accepts now; the rest waits for
    /// the next call. Returns nil while the connection lives.
    public func send() -> End? {
        guard !isClosed else { return .closed }
        while true {
            var chunk: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &chunk)
            if length < 0 { return .protocolError(String(cString: nghttp2_strerror(Int32(length)))) }
            guard length > 0, let chunk else { break }
            outbound.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
            bytesQueued += UInt64(length)
        }
        var sent = 0
        defer {
            outbound.removeFirst(sent)
            bytesWritten += UInt64(sent)
        }
        while sent < outbound.count {
            let step: TLSSession.Step = outbound.withUnsafeBytes { raw in
                let rest = UnsafeRawBufferPointer(rebasing: raw[sent...])
                if let tls { return tls.write(rest) }
                let n = Glibc.send(fd, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL))
                if n >= 0 { return .done(n) }
                return errno == EAGAIN || errno == EWOULDBLOCK ? .wantWrite : .failed(String(cString: strerror(errno)))
            }
            switch step {
            case .done(let n): sent += n
            case .wantRead, .wantWrite: return nil
            case .closed: return .closed
            case .failed(let reason): return .failed(reason)
            }
        }
        return nil
    }

    /// Neither side has anything left to say: the session is over.
    public var isFinished: Bool {
        outbound.isEmpty && nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }
}

import CMicroHTTPD
import Foundation

/// A connection handed over after a `101 Switching Protocols` answer (a WebSocket): its socket,
/// the bytes the client sent past the request, and the way to give it back to libmicrohttpd.
public final class UpgradedSocket: @unchecked Sendable {
    /// Non-blocking; read and written only by whoever took it over.
    public let fd: Int32
    /// What arrived after the request's headers, before the answer went out (the first frames).
    public let extra: Data
    private let handle: OpaquePointer
    private var closed = false

    init(fd: Int32, extra: Data, handle: OpaquePointer) {
        self.fd = fd
        self.extra = extra
        self.handle = handle
    }

    /// Closes the connection (libmicrohttpd closes the socket); once.
    public func close() {
        guard !closed else { return }
        closed = true
        _ = CMicroHTTPD_close_upgraded(handle)
    }
}

/// The takeover a 101 answer carries, until libmicrohttpd calls it.
final class UpgradeTakeover {
    let take: @Sendable (UpgradedSocket) -> Void
    let server: Unmanaged<HTTPServer>
    init(_ take: @escaping @Sendable (UpgradedSocket) -> Void, server: Unmanaged<HTTPServer>) {
        self.take = take
        self.server = server
    }
}

/// libmicrohttpd's upgrade handler: the 101 went out, the socket is the taker's now.
func httpUpgraded(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, slot: UnsafeMutableRawPointer?, extraIn: UnsafePointer<CChar>?,
    extraSize: Int, socket: Int32, handle: OpaquePointer?
) {
    guard let context, let handle else { return }
    let takeover = Unmanaged<UpgradeTakeover>.fromOpaque(context).takeRetainedValue()
    // No header or body deadline applies to it any more.
    if let connection { takeover.server.takeUnretainedValue().deadlines.closed(connection) }
    let extra = extraIn.map { Data(bytes: $0, count: extraSize) } ?? Data()
    let flags = fcntl(socket, F_GETFL)
    _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
    takeover.take(UpgradedSocket(fd: socket, extra: extra, handle: handle))
}

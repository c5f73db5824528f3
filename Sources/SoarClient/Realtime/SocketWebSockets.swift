#if canImport(FoundationNetworking)
    import CWslay
    import Foundation
    import SoarCore
    import SoarCrypto

    #if canImport(Glibc)
        import Glibc
    #endif

    /// WebSockets where URLSession has none (Linux): a plain socket, the HTTP upgrade, and libwslay
    /// for the framing. `ws://` only (put TLS in front, or use URLSession on Apple systems).
    public struct SocketWebSockets: WebSocketConnecting {
        public init() {}

        public func connect(to url: URL) async throws -> any WebSocketConnection {
            guard url.scheme == "ws" || url.scheme == "http" else {
                throw WebSocketError("\(url.scheme ?? "this scheme") is not supported here: on Linux, SoarClient's realtime speaks ws:// (URLSession speaks wss:// on Apple systems)")
            }
            return try SocketWebSocket(url: url)
        }
    }

    /// One client WebSocket: a reader thread feeds wslay; sends and wslay's state share one lock.
    final class SocketWebSocket: WebSocketConnection, @unchecked Sendable {
        let messages: AsyncThrowingStream<String, any Error>
        private let continuation: AsyncThrowingStream<String, any Error>.Continuation
        private let fd: Int32
        private let lock = Locked(())
        private var context: OpaquePointer?
        private var pending: Data

        init(url: URL) throws {
            (messages, continuation) = AsyncThrowingStream.makeStream()
            let host = url.host ?? "127.0.0.1"
            let port = url.port ?? 80
            fd = try Self.open(host: host, port: port)
            do {
                pending = try Self.handshake(fd, host: host, port: port, target: url.path + (url.query.map { "?" + $0 } ?? ""))
            } catch {
                Glibc.close(fd)
                throw error
            }
            var callbacks = wslay_event_callbacks(
                recv_callback: { _, buffer, length, _, user in SocketWebSocket.from(user).read(into: buffer!, length) },
                send_callback: { _, data, length, _, user in SocketWebSocket.from(user).write(data!, length) },
                genmask_callback: { _, buffer, length, _ in
                    var generator = SystemRandomNumberGenerator()
                    for index in 0..<length { buffer![index] = UInt8.random(in: 0...255, using: &generator) }
                    return 0
                },
                on_frame_recv_start_callback: nil, on_frame_recv_chunk_callback: nil, on_frame_recv_end_callback: nil,
                on_msg_recv_callback: { _, argument, user in
                    guard let argument = argument?.pointee, argument.opcode == UInt8(WSLAY_TEXT_FRAME.rawValue) else { return }
                    SocketWebSocket.from(user).continuation.yield(String(decoding: UnsafeBufferPointer(start: argument.msg, count: argument.msg_length), as: UTF8.self))
                })
            var made: OpaquePointer?
            _ = wslay_event_context_client_init(&made, &callbacks, Unmanaged.passUnretained(self).toOpaque())
            context = made
            let thread = Thread { [self] in readLoop() }
            thread.name = "soar.realtime.client"
            thread.start()
        }

        deinit {
            if let context { wslay_event_context_free(context) }
            Glibc.close(fd)
        }

        private static func from(_ user: UnsafeMutableRawPointer?) -> SocketWebSocket { Unmanaged<SocketWebSocket>.fromOpaque(user!).takeUnretainedValue() }

        func send(_ text: String) async throws {
            let sent: Bool = lock.withLock { _ in
                guard let context else { return false }
                // wslay copies the message when it is queued: the bytes need to live only that long.
                var bytes = Array(text.utf8)
                let queued = bytes.withUnsafeMutableBufferPointer { buffer in
                    var message = wslay_event_msg(opcode: UInt8(WSLAY_TEXT_FRAME.rawValue), msg: buffer.baseAddress, msg_length: buffer.count)
                    return wslay_event_queue_msg(context, &message)
                }
                guard queued == 0 else { return false }
                return wslay_event_send(context) == 0
            }
            if !sent { throw WebSocketError("the realtime socket is closed") }
        }

        func close() {
            lock.withLock { _ in
                guard let context else { return }
                _ = wslay_event_queue_close(context, 1000, nil, 0)
                _ = wslay_event_send(context)
            }
            shutdown(fd, Int32(SHUT_RDWR))
        }

        private func readLoop() {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while true {
                let ready = poll(&poller, 1, 200)
                if ready < 0 && errno != EINTR { break }
                let open: Bool = lock.withLock { _ in
                    guard let context else { return false }
                    if ready > 0 || !pending.isEmpty, wslay_event_recv(context) != 0 { return false }
                    if wslay_event_want_write(context) != 0, wslay_event_send(context) != 0 { return false }
                    return wslay_event_want_read(context) != 0
                }
                if !open { break }
            }
            continuation.finish()
        }

        // MARK: wslay's callbacks (under the lock)

        private func read(into buffer: UnsafeMutablePointer<UInt8>, _ length: Int) -> Int {
            if !pending.isEmpty {
                let count = min(length, pending.count)
                pending.copyBytes(to: buffer, count: count)
                pending.removeFirst(count)
                return count
            }
            let count = recv(fd, buffer, length, Int32(MSG_DONTWAIT))
            if count > 0 { return count }
            wslay_event_set_error(context, count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? WSLAY_ERR_WOULDBLOCK.rawValue : WSLAY_ERR_CALLBACK_FAILURE.rawValue)
            return -1
        }

        private func write(_ data: UnsafePointer<UInt8>, _ length: Int) -> Int {
            let count = Glibc.send(fd, data, length, Int32(MSG_NOSIGNAL))
            if count >= 0 { return count }
            wslay_event_set_error(context, errno == EAGAIN || errno == EINTR ? WSLAY_ERR_WOULDBLOCK.rawValue : WSLAY_ERR_CALLBACK_FAILURE.rawValue)
            return -1
        }

        // MARK: opening

        private static func open(host: String, port: Int) throws -> Int32 {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var found: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { throw WebSocketError("cannot find \(host)") }
            defer { freeaddrinfo(found) }
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let address = entry {
                let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
                if fd >= 0 {
                    if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return fd }
                    Glibc.close(fd)
                }
                entry = address.pointee.ai_next
            }
            throw WebSocketError("cannot connect to \(host):\(port)")
        }

        /// Sends the upgrade and checks the answer; returns what arrived past its headers.
        private static func handshake(_ fd: Int32, host: String, port: Int, target: String) throws -> Data {
            var generator = SystemRandomNumberGenerator()
            let key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
            let request = "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
            guard Glibc.send(fd, request, request.utf8.count, Int32(MSG_NOSIGNAL)) == request.utf8.count else { throw WebSocketError("cannot send the upgrade") }
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while received.range(of: Data("\r\n\r\n".utf8)) == nil {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { throw WebSocketError("the server closed the connection during the upgrade") }
                received.append(contentsOf: buffer[0..<count])
                guard received.count < 65_536 else { throw WebSocketError("the upgrade's answer is too long") }
            }
            let end = received.range(of: Data("\r\n\r\n".utf8))!
            let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            guard lines.first?.contains(" 101 ") == true else {
                let body = String(decoding: received[end.upperBound...], as: UTF8.self)
                throw WebSocketError("the server refused the WebSocket: \(lines.first ?? "") \(body)")
            }
            let accept = sha1(Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)).base64EncodedString()
            guard lines.contains(where: { $0.lowercased().hasPrefix("sec-websocket-accept:") && $0.hasSuffix(accept) }) else {
                throw WebSocketError("the server's Sec-WebSocket-Accept does not match")
            }
            return Data(received[end.upperBound...])
        }
    }
#endif

import CWslay
import Foundation
import SoarCore

#if canImport(Glibc)
    import Glibc
#endif

/// One server-side WebSocket on a non-blocking socket, with wslay doing the framing: masking,
/// fragments, ping and pong, close codes, the message size limit. Touched only by its loop's thread.
final class WebSocket {
    enum Message {
        case text(Data)
        case binary(Data)
    }

    let fd: Int32
    private var context: OpaquePointer?
    /// Bytes read before the socket was handed over (the client's first frames).
    private var pending: Data
    private let received: (Message) -> Void
    /// What may wait unsent before the peer is dropped as too slow to read.
    static let maxQueued = 4 << 20

    /// - Parameter maxMessage: the largest message taken; a larger one closes with 1009.
    init(fd: Int32, extra: Data, maxMessage: Int, received: @escaping (Message) -> Void) {
        self.fd = fd
        self.pending = extra
        self.received = received
        var callbacks = wslay_event_callbacks(
            recv_callback: { _, buffer, length, _, user in WebSocket.from(user).read(into: buffer!, length) },
            send_callback: { _, data, length, _, user in WebSocket.from(user).write(data!, length) },
            genmask_callback: nil, on_frame_recv_start_callback: nil, on_frame_recv_chunk_callback: nil, on_frame_recv_end_callback: nil,
            on_msg_recv_callback: { _, argument, user in
                guard let argument = argument?.pointee else { return }
                WebSocket.from(user).message(argument)
            })
        var made: OpaquePointer?
        _ = wslay_event_context_server_init(&made, &callbacks, Unmanaged.passUnretained(self).toOpaque())
        context = made
        if let made { wslay_event_config_set_max_recv_msg_length(made, UInt64(maxMessage)) }
    }

    deinit { if let context { wslay_event_context_free(context) } }

    private static func from(_ user: UnsafeMutableRawPointer?) -> WebSocket { Unmanaged<WebSocket>.fromOpaque(user!).takeUnretainedValue() }

    /// Reads what the socket has and handles each message; false when the connection is over.
    func readable() -> Bool {
        guard let context else { return false }
        return wslay_event_recv(context) == 0 && isOpen
    }

    /// Writes what is queued; false when the connection is over.
    func writable() -> Bool {
        guard let context else { return false }
        return wslay_event_send(context) == 0 && isOpen
    }

    /// Whether anything waits to be written.
    var wantsWrite: Bool { context.map { wslay_event_want_write($0) != 0 } ?? false }

    /// Whether the connection still reads or writes (a close both ways ends it).
    var isOpen: Bool {
        guard let context else { return false }
        return wslay_event_want_read(context) != 0 || wslay_event_want_write(context) != 0
    }

    /// Queues a message; false when the peer reads too slowly to keep up (it should be dropped).
    @discardableResult
    func send(_ message: Message) -> Bool {
        guard let context else { return false }
        guard wslay_event_get_queued_msg_length(context) < Self.maxQueued else { return false }
        let (opcode, data): (UInt8, Data) = switch message {
        case .text(let data): (UInt8(WSLAY_TEXT_FRAME.rawValue), data)
        case .binary(let data): (UInt8(WSLAY_BINARY_FRAME.rawValue), data)
        }
        return data.withUnsafeBytes { raw in
            var item = wslay_event_msg(opcode: opcode, msg: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), msg_length: raw.count)
            return wslay_event_queue_msg(context, &item) == 0
        }
    }

    /// Queues a close frame with a status code and reason.
    func close(code: UInt16, reason: String) {
        guard let context else { return }
        var reason = Array(reason.utf8.prefix(120))
        _ = wslay_event_queue_close(context, code, &reason, reason.count)
    }

    // MARK: wslay's callbacks

    private func read(into buffer: UnsafeMutablePointer<UInt8>, _ length: Int) -> Int {
        if !pending.isEmpty {
            let count = min(length, pending.count)
            pending.copyBytes(to: buffer, count: count)
            pending.removeFirst(count)
            return count
        }
        let count = recv(fd, buffer, length, 0)
        if count > 0 { return count }
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            wslay_event_set_error(context, WSLAY_ERR_WOULDBLOCK.rawValue)
        } else {
            wslay_event_set_error(context, WSLAY_ERR_CALLBACK_FAILURE.rawValue)
        }
        return -1
    }

    private func write(_ data: UnsafePointer<UInt8>, _ length: Int) -> Int {
        let count = Glibc.send(fd, data, length, Int32(MSG_NOSIGNAL))
        if count >= 0 { return count }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
            wslay_event_set_error(context, WSLAY_ERR_WOULDBLOCK.rawValue)
        } else {
            wslay_event_set_error(context, WSLAY_ERR_CALLBACK_FAILURE.rawValue)
        }
        return -1
    }

    private func message(_ argument: wslay_event_on_msg_recv_arg) {
        let data = argument.msg.map { Data(bytes: $0, count: argument.msg_length) } ?? Data()
        switch UInt32(argument.opcode) {
        case WSLAY_TEXT_FRAME.rawValue: received(.text(data))
        case WSLAY_BINARY_FRAME.rawValue: received(.binary(data))
        default: break  // ping, pong and close are wslay's
        }
    }
}

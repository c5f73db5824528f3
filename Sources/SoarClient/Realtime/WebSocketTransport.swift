import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A WebSocket to the backend as the realtime client uses it: text messages both ways.
public protocol WebSocketConnection: Sendable {
    func send(_ text: String) async throws
    /// Text messages as they arrive; ends when the socket closes, throwing when it failed.
    var messages: AsyncThrowingStream<String, any Error> { get }
    func close()
}

/// Opens WebSockets: URLSession's on Apple systems, libwslay's over a plain socket elsewhere.
public protocol WebSocketConnecting: Sendable {
    func connect(to url: URL) async throws -> any WebSocketConnection
}

/// Why a WebSocket could not be opened or used.
public struct WebSocketError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

#if !canImport(FoundationNetworking)
    /// URLSession's WebSockets (ws:// and wss://).
    public struct URLSessionWebSockets: WebSocketConnecting {
        public init() {}

        public func connect(to url: URL) async throws -> any WebSocketConnection {
            let task = URLSession.shared.webSocketTask(with: url)
            task.resume()
            return Connection(task: task)
        }

        final class Connection: WebSocketConnection, @unchecked Sendable {
            let task: URLSessionWebSocketTask
            let messages: AsyncThrowingStream<String, any Error>

            init(task: URLSessionWebSocketTask) {
                self.task = task
                messages = AsyncThrowingStream { continuation in
                    @Sendable func next() {
                        task.receive { result in
                            switch result {
                            case .success(.string(let text)):
                                continuation.yield(text)
                                next()
                            case .success:
                                next()
                            case .failure(let error):
                                continuation.finish(throwing: error)
                            }
                        }
                    }
                    next()
                }
            }

            func send(_ text: String) async throws { try await task.send(.string(text)) }
            func close() { task.cancel(with: .normalClosure, reason: nil) }
        }
    }
#endif

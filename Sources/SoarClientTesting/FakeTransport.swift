import Foundation
import SoarClient
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that answers from a closure, records every request, and can be cut off (each
/// request then fails as offline, `URLError.notConnectedToInternet`).
public final class FakeTransport: HTTPTransport {
    public typealias Handler = @Sendable (URLRequest) async throws -> (Int, [String: String], Data)
    private let handler: Handler
    private let state = Locked<(offline: Bool, requests: [URLRequest])>((false, []))

    public init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    /// Passes requests on to a real transport (URLSession), so a test can cut a real server off.
    public convenience init(passingTo transport: any HTTPTransport = URLSessionTransport()) {
        self.init { request in
            let (data, response) = try await transport.send(request)
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields { headers["\(name)"] = "\(value)" }
            return (response.statusCode, headers, data)
        }
    }

    public var offline: Bool {
        get { state.withLock { $0.offline } }
        set { state.withLock { $0.offline = newValue } }
    }

    public var requests: [URLRequest] { state.withLock { $0.requests } }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let offline = state.withLock { state in
            state.requests.append(request)
            return state.offline
        }
        if offline { throw URLError(.notConnectedToInternet) }
        let (status, headers, body) = try await handler(request)
        return (body, HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!)
    }
}

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one seam every request of the client goes through: URLSession in an app, a fake in tests.
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns the body and the response, whatever its status.
    ///
    /// - Throws: a `URLError` when no answer came (offline, timed out, refused).
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// URLSession as the transport (FoundationNetworking on Linux).
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// - Parameter timeout: seconds a request may wait for its answer.
    public init(timeout: TimeInterval = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, http)
    }
}

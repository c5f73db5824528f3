import Foundation

/// A request as an HTTP/2 server received it.
public struct H2Request: Sendable {
    public var method = ""
    public var path = ""
    /// Regular headers in arrival order, names lowercase (HTTP/2 requires it); no pseudo-headers.
    public var headers: [(String, String)] = []
    /// The body, up to the session's limit.
    public var body = Data()
    /// The body's full size, even past what was kept.
    public var bodySize = 0

    public init(method: String = "", path: String = "", headers: [(String, String)] = [], body: Data = Data()) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.bodySize = body.count
    }

    public func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
}

/// A response, as an HTTP/2 client received it or as a server sends it.
public struct H2Response: Sendable {
    public var status = 0
    /// Regular headers in arrival order, names lowercase.
    public var headers: [(String, String)] = []
    /// The body, up to the session's limit.
    public var body = Data()

    public init(status: Int = 0, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
}

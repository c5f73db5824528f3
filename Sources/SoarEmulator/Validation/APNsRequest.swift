import Foundation
import SoarCore

/// One request as it came off an HTTP/2 stream.
public struct APNsRequest: Sendable {
    public var method = ""
    public var path = ""
    /// Regular headers in arrival order, names lowercase (HTTP/2 requires it).
    public var headers: [(String, String)] = []
    public var body = Data()
    /// The body's full size, even past what was kept.
    public var bodySize = 0
    /// Header bytes as HTTP/2 counts them (name + value + 32 each), for the size limit.
    var headerBytes = 0

    public init() {}

    public init(method: String, path: String, headers: [(String, String)], body: Data) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.bodySize = body.count
    }

    public func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
}

/// What a connection knows about its client's authentication.
public struct ConnectionAuth: Sendable {
    /// The common name of a verified client certificate: certificate-based auth.
    public var clientCertificate: String?
    /// The provider token last accepted on this connection, and when.
    var token: String?
    var tokenIssuedAt = 0
    var tokenAcceptedAt: Date?

    public init(clientCertificate: String? = nil) { self.clientCertificate = clientCertificate }
}

/// The answer to a request.
public enum Verdict: Sendable, Equatable {
    /// Accepted, with the payload as read (written back compactly in the delivery log).
    case accepted(apnsID: String, payload: JSONValue)
    /// A rejection; 410 answers carry Apple's timestamp in milliseconds.
    case rejected(reason: String, status: Int, apnsID: String, timestamp: Int64?)
}

import Foundation
import SoarCore
import SoarHTTP2

/// What a connection knows about its client's authentication.
public struct ConnectionAuth: Sendable, H2ConnectionState {
    /// The common name of a verified client certificate: certificate-based auth.
    public var clientCertificate: String?
    /// The provider token last accepted on this connection, and when.
    var token: String?
    var tokenIssuedAt = 0
    var tokenAcceptedAt: Date?

    public init() {}
    public init(clientCertificate: String?) { self.clientCertificate = clientCertificate }
}

/// The answer to a request.
public enum Verdict: Sendable, Equatable {
    /// Accepted, with the payload as read (written back compactly in the delivery log).
    case accepted(apnsID: String, payload: JSONValue)
    /// A rejection; 410 answers carry Apple's timestamp in milliseconds.
    case rejected(reason: String, status: Int, apnsID: String, timestamp: Int64?)
}

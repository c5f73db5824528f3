/// Why a request got no answer from APNs, and what that means for the notification.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is known about the notification.
    public enum Kind: String, Sendable {
        /// Nothing reached the server: no address, connection refused or closed before the request
        /// left, no connection in time. Worth another try.
        case unreachable
        /// The server cannot be used as configured: its certificate does not verify, it does not
        /// speak HTTP/2, or it never answered a new connection. Another try will not help.
        case misconfigured
        /// The request left and the connection was lost before the answer: it may have been delivered.
        case answerLost
        /// The request left and no answer came in time: it may have been delivered.
        case timedOut
        /// The client was shut down before the request could go.
        case shutDown
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The server may have taken the notification: its answer never came.
    public var mayHaveBeenDelivered: Bool { kind == .answerLost || kind == .timedOut }

    /// Whether sending again may succeed.
    public var isRetryable: Bool { kind == .unreachable || kind == .answerLost || kind == .timedOut }

    public var description: String { message }

    static let shutDown = TransportError(.shutDown, "the APNs client was shut down")
}

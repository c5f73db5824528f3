/// A push request that cannot be carried out: its HTTP status, a stable code and a message
/// that says what to do. Never carries a secret.
public struct PushError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let code: String
    public let message: String

    public init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    public static func invalid(_ message: String) -> PushError { PushError(400, "invalid_request", message) }

    public static func notConfigured(_ missing: [String]) -> PushError {
        PushError(
            503, "apns_not_configured",
            "APNs is not configured on this server, so nothing was sent: set \(missing.joined(separator: ", ")) (or run soar serve --with-emulator to deliver to the local emulator)")
    }
}

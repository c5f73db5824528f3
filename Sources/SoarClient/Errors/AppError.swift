import Foundation
import SoarCore

/// An error as the app shows it: a typed code, a message fit for the user, and the original error.
///
/// View models display ``message`` directly. Build one with ``map(_:)`` from whatever a call threw,
/// or from an HTTP answer with ``init(status:body:)``.
public struct AppError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case authentication, rateLimited, network, validation, notFound, unknown
    }

    public let code: Code
    public let message: String
    /// What was thrown or answered, kept for logs and debugging.
    public let original: (any Error)?

    public init(_ code: Code, _ message: String, original: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.original = original
    }

    public var description: String { "\(code): \(message)" }
}

extension AppError {
    public static func authentication(_ message: String = Messages.authentication) -> AppError { .init(.authentication, message) }
    public static func rateLimited(_ message: String = Messages.rateLimited) -> AppError { .init(.rateLimited, message) }
    public static func network(_ message: String = Messages.offline) -> AppError { .init(.network, message) }
    public static func validation(_ message: String) -> AppError { .init(.validation, message) }
    public static func notFound(_ message: String = Messages.notFound) -> AppError { .init(.notFound, message) }
    public static func unknown(_ message: String = Messages.unknown) -> AppError { .init(.unknown, message) }

    /// The user-facing texts, in one place.
    public enum Messages {
        public static let offline = "You seem to be offline. Check your connection and try again."
        public static let timedOut = "The server took too long to answer. Try again."
        public static let authentication = "Please sign in again."
        public static let invalidAPIKey = "The server refused this app's API key (the anon key it was built with)."
        public static let invalidCredentials = "Incorrect email or password"
        public static let rateLimited = "Too many attempts. Wait a moment and try again."
        public static let notFound = "That item no longer exists."
        public static let unknown = "Something went wrong. Try again."
        public static let server = "Something went wrong on our side. Try again shortly."
    }
}

extension AppError: Equatable {
    /// Equal when code and message are; the original error is context, not identity.
    public static func == (lhs: AppError, rhs: AppError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }
}

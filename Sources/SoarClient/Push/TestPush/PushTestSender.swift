import Foundation
import SoarCore

/// What the Notifications screen's test button sends (seed 000).
public struct PushTestRequest: Codable, Sendable, Hashable {
    public var title: String
    public var body: String
    public var deeplink: String
    /// `sandbox` or `production`: the APNs host, which must match the build.
    public var environment: String

    public init(title: String = "Test notification", body: String = "Sent from the Notifications screen.",
                deeplink: String = "soar:///notifications", environment: String = "sandbox") {
        self.title = title
        self.body = body
        self.deeplink = deeplink
        self.environment = environment
    }
}

/// `send-test-push`'s answer: what happened on each of the caller's devices.
public struct PushTestResult: Decodable, Sendable, Hashable {
    public struct Device: Decodable, Sendable, Hashable {
        public var token: String
        public var environment: String?
        public var status: String
        public var apnsId: String?
        public var reason: String?
        public var removed: Bool?

        enum CodingKeys: String, CodingKey {
            case token, environment, status, reason, removed
            case apnsId = "apns_id"
        }
    }

    public var sent: Int
    public var delivered: Int
    public var failed: Int
    public var removed: Int
    public var results: [Device]
    /// The server's explanation when nothing was sent (no device registered yet).
    public var message: String?
}

/// What the Notifications screen's test button calls: ``PushTestSender`` through SoarClient, or an
/// app's own over another client.
public protocol PushTestSending: Sendable {
    func send(_ request: PushTestRequest) async -> AppResult<PushTestResult>
}

/// Calls `send-test-push`, which keeps Apple's credentials on the server and sends to the
/// caller's own devices.
public struct PushTestSender: PushTestSending {
    private let functions: SoarFunctionsClient

    public init(client: Soar) {
        functions = client.functions
    }

    public func send(_ request: PushTestRequest) async -> AppResult<PushTestResult> {
        await AppResult { try await functions.invoke("send-test-push", options: .init(body: request)) as PushTestResult }
    }
}

import Foundation
import SoarClient
import Synchronization

/// A device-token registry in memory that can be told to fail, recording each call.
public final class FakeDeviceTokenRegistry: DeviceTokenRegistry {
    public enum Call: Hashable, Sendable {
        case register(userId: UUID, token: String, accessToken: String)
        case unregister(userId: UUID, token: String, accessToken: String)
    }

    private let state = Locked<(rows: Set<String>, calls: [Call], failure: AppError?)>(([], [], nil))

    public init() {}

    /// Makes every call fail with `error` until set back to nil.
    public func fail(with error: AppError?) { state.withLock { $0.failure = error } }

    public var calls: [Call] { state.withLock { $0.calls } }
    /// `user:token` for each row held.
    public var rows: Set<String> { state.withLock { $0.rows } }

    public func register(_ registration: DeviceToken, accessToken: String) async throws(AppError) {
        try record(.register(userId: registration.userId, token: registration.token, accessToken: accessToken)) {
            $0.insert(Self.key(registration.userId, registration.token))
        }
    }

    public func unregister(token: String, userId: UUID, accessToken: String) async throws(AppError) {
        try record(.unregister(userId: userId, token: token, accessToken: accessToken)) { $0.remove(Self.key(userId, token)) }
    }

    private func record(_ call: Call, _ change: (inout Set<String>) -> Void) throws(AppError) {
        let failure: AppError? = state.withLock { state in
            state.calls.append(call)
            if state.failure == nil { change(&state.rows) }
            return state.failure
        }
        if let failure { throw failure }
    }

    public static func key(_ userId: UUID, _ token: String) -> String { "\(userId.uuidString.lowercased()):\(token)" }
}

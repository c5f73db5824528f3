import SoarCore

/// How one device's notification ended, as the functions report it.
public struct DeviceResult: Sendable {
    public let device: Device
    /// The environment that was sent to last.
    public let environment: PushEnvironment
    public let outcome: APNsOutcomeSummary
    /// Whether the device's row was deleted because APNs said the token is dead.
    public let removed: Bool
    /// Set when the token failed with BadDeviceToken in this environment and worked in the other:
    /// the row now records the other.
    public let healedFrom: PushEnvironment?

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "token": .string(device.shortToken), "environment": .string(environment.rawValue),
            "status": .string(outcome.delivered ? "delivered" : "failed"), "apns_id": outcome.apnsID.map { .string($0) } ?? .null,
            "reason": outcome.reason.map { .string($0) } ?? .null, "removed": .bool(removed),
        ]
        if let detail = outcome.detail { object["detail"] = .string(detail) }
        if let healedFrom {
            object["environment_healed"] = .string(
                "BadDeviceToken in \(healedFrom.rawValue), delivered in \(environment.rawValue): the device now records \(environment.rawValue)")
        }
        return .object(object)
    }
}

/// The part of an APNs outcome a report shows.
public struct APNsOutcomeSummary: Sendable, Equatable {
    public let delivered: Bool
    public let apnsID: String?
    /// Apple's reason (`BadDeviceToken`, `Unregistered`…) or soar's (`ConnectionFailed`…).
    public let reason: String?
    public let detail: String?
}

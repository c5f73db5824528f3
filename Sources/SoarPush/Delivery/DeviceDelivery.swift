import Foundation
import SoarAPNs
import SoarCore

/// Delivers one notification to one device and keeps `device_tokens` true to what APNs says:
/// a BadDeviceToken is tried once in the other environment (a TestFlight token sent to the
/// sandbox) before the row goes; BadDeviceToken, Unregistered, ExpiredToken and
/// DeviceTokenNotForTopic remove the row, a 410 only when the device did not register again
/// after Apple's timestamp.
struct DeviceDelivery: Sendable {
    let clients: APNsClients
    let rows: DeviceRows
    let metrics: PushMetrics

    func deliver(_ notification: APNsNotification, to device: Device, requested: PushEnvironment) async -> DeviceResult {
        let started = ContinuousClock.now
        let result = await settle(notification, device, requested)
        metrics.record(result, seconds: Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000_000)
        return result
    }

    private func settle(_ notification: APNsNotification, _ device: Device, _ requested: PushEnvironment) async -> DeviceResult {
        var notification = notification
        notification.token = device.token.lowercased()
        notification.topic = notification.topic ?? device.bundleID
        notification.apnsID = notification.apnsID ?? UUID()
        let first = device.environment ?? requested
        var environment = first
        var outcome = await send(notification, first)
        var healedFrom: PushEnvironment?
        if outcome.failure?.reason == .badDeviceToken {
            let retried = await send(notification, first.other)
            if retried.isDelivered {
                environment = first.other
                healedFrom = first
                outcome = retried
                try? rows.record(environment, for: device)
            }
        }
        var removed = false
        if let failure = outcome.failure, failure.isInvalidToken {
            removed = (try? rows.remove(device, unlessUpdatedSince: failure.status == 410 ? failure.timestamp : nil)) ?? false
        }
        return DeviceResult(device: device, environment: environment, outcome: Self.summary(outcome, apnsID: notification.apnsID), removed: removed, healedFrom: healedFrom)
    }

    private func send(_ notification: APNsNotification, _ environment: PushEnvironment) async -> APNsOutcome {
        do {
            return try await clients.client(for: environment).send(notification)
        } catch {
            return .failed(APNsFailure(status: 0, reason: APNsFailure.connectionFailed, detail: error.description, attempts: 0))
        }
    }

    static func summary(_ outcome: APNsOutcome, apnsID: UUID?) -> APNsOutcomeSummary {
        switch outcome {
        case .delivered(let id, _):
            return APNsOutcomeSummary(delivered: true, apnsID: id, reason: nil, detail: nil)
        case .failed(let failure):
            return APNsOutcomeSummary(
                delivered: false, apnsID: failure.apnsID ?? apnsID?.uuidString.lowercased(), reason: failure.reason.rawValue, detail: failure.detail)
        }
    }
}

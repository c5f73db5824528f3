import Foundation
import SoarAPNs
import SoarCore
import SoarStore

/// Delivers one notification to one device and keeps `device_tokens` true to what APNs says:
/// a BadDeviceToken is tried once in the other environment (a TestFlight token sent to the
/// sandbox) before the row goes; BadDeviceToken, Unregistered, ExpiredToken and
/// DeviceTokenNotForTopic remove the row, a 410 only when the device did not register again
/// after Apple's timestamp.
struct DeviceDelivery: Sendable {
    let clients: APNsClients
    let rows: DeviceRows
    let metrics: PushMetrics
    /// Row changes, off the threads deliveries run on; a send with many dead tokens removes their
    /// rows side by side.
    private let rowWrites = StoreLane("rows", .concurrent)

    func deliver(_ notification: APNsNotification, to device: Device, requested: PushEnvironment) async -> DeviceResult {
        let started = ContinuousClock.now
        let notification = Self.prepare(notification, for: device)
        let first = device.environment ?? requested
        return await settle(notification, device, first: first, outcome: await send(notification, first), started: started)
    }

    /// Many devices, one APNs environment each: the first attempts go out through the client's
    /// bulk send (no task per notification), and only failures get the per-device treatment.
    /// `onResult` receives each item's index and result, from any thread.
    func deliver(
        _ items: [(notification: APNsNotification, device: Device)], requested: PushEnvironment, maxInFlight: Int,
        onResult: @escaping @Sendable (Int, DeviceResult) -> Void
    ) async {
        let started = ContinuousClock.now
        var groups: [PushEnvironment: [Int]] = [:]
        for (index, item) in items.enumerated() { groups[item.device.environment ?? requested, default: []].append(index) }
        let prepared = items.map { Self.prepare($0.notification, for: $0.device) }
        let failures = Locked<[(Int, PushEnvironment, APNsOutcome)]>([])
        await withTaskGroup(of: Void.self) { group in
            for (environment, indices) in groups {
                group.addTask {
                    guard let client = try? clients.client(for: environment) else {
                        failures.withLock { list in
                            for index in indices { list.append((index, environment, .failed(APNsFailure(status: 0, reason: APNsFailure.connectionFailed, attempts: 0)))) }
                        }
                        return
                    }
                    await client.send(indices.lazy.map { prepared[$0] }, maxInFlight: maxInFlight) { result in
                        let index = indices[result.index]
                        guard result.outcome.isDelivered else { return failures.withLock { $0.append((index, environment, result.outcome)) } }
                        let device = items[index].device
                        let outcome = DeviceResult(
                            device: device, environment: environment, outcome: Self.summary(result.outcome, apnsID: prepared[index].apnsID), removed: false,
                            healedFrom: nil)
                        metrics.record(outcome, seconds: Self.seconds(since: started))
                        onResult(index, outcome)
                    }
                }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for (index, environment, outcome) in failures.withLock({ $0 }) {
                group.addTask { onResult(index, await settle(prepared[index], items[index].device, first: environment, outcome: outcome, started: started)) }
            }
        }
    }

    /// The notification as this device gets it: its token, its app's topic, an apns-id.
    private static func prepare(_ notification: APNsNotification, for device: Device) -> APNsNotification {
        var notification = notification
        // As stored; the request's path is the token in lowercase hex (`APNsRequest` normalizes it).
        notification.token = device.token
        notification.topic = notification.topic ?? device.bundleID
        notification.apnsID = notification.apnsID ?? UUID()
        return notification
    }

    /// What APNs' first answer leads to: a second try in the other environment after
    /// BadDeviceToken, the row removed for a dead token.
    private func settle(_ notification: APNsNotification, _ device: Device, first: PushEnvironment, outcome: APNsOutcome, started: ContinuousClock.Instant) async -> DeviceResult {
        var environment = first
        var outcome = outcome
        var healedFrom: PushEnvironment?
        if outcome.failure?.reason == .badDeviceToken {
            let retried = await send(notification, first.other)
            if retried.isDelivered {
                environment = first.other
                healedFrom = first
                outcome = retried
                try? await rowWrites.run { [rows, environment] () throws(StoreError) in try rows.record(environment, for: device) }
            }
        }
        var removed = false
        if let failure = outcome.failure, failure.isInvalidToken {
            let appleTime = failure.status == 410 ? failure.timestamp : nil
            removed = (try? await rowWrites.run { [rows] () throws(StoreError) in try rows.remove(device, unlessUpdatedSince: appleTime) }) ?? false
        }
        let result = DeviceResult(
            device: device, environment: environment, outcome: Self.summary(outcome, apnsID: notification.apnsID), removed: removed, healedFrom: healedFrom)
        metrics.record(result, seconds: Self.seconds(since: started))
        return result
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        Double((ContinuousClock.now - start) / .microseconds(1)) / 1_000_000
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

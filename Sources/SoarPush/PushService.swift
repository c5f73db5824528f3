import Foundation
import SoarAPNs
import SoarCore
import SoarStore

/// Push in the backend: device registration, and sending to a user's devices through long-lived
/// APNs clients with the server's Apple credentials. Without credentials every send is a safe
/// no-op that says what to configure.
public final class PushService: Sendable {
    public let settings: PushSettings.Loaded
    private let clients: APNsClients?
    private let rows: DeviceRows
    private let registration: DeviceRegistration

    public init(settings: PushSettings.Loaded, store: any DataStore) {
        self.settings = settings
        if case .configured(let configured) = settings { clients = APNsClients(settings: configured) } else { clients = nil }
        rows = DeviceRows(store: store)
        registration = DeviceRegistration(store: store)
    }

    /// One line for the start-up banner: where notifications go, or what is missing. No secrets.
    public var summary: String {
        switch settings {
        case .configured(let settings):
            let places = PushEnvironment.allCases.map { "\($0.rawValue) \(settings.destinations[$0]?.baseURL ?? "?")" }
            return "APNs \(places.joined(separator: ", ")); topic \(settings.bundleID)"
        case .notConfigured(let missing):
            return "APNs not configured (send-test-push answers 503): set \(missing.joined(separator: ", "))"
        }
    }

    /// `send-test-push`: the notification to each of the user's own iOS devices, rows of dead
    /// tokens removed, one result per device.
    ///
    /// - Throws: ``PushError`` 400 for a bad body, 503 when APNs is not configured or the store fails.
    public func sendTestPush(userID: String, body: JSONValue) async throws(PushError) -> JSONValue {
        let request = try TestPushRequest(json: body)
        guard let clients else {
            if case .notConfigured(let missing) = settings { throw .notConfigured(missing) }
            throw .notConfigured([])
        }
        let devices: [Device]
        do { devices = try rows.iOSDevices(of: userID) } catch { throw PushError(503, "store_unavailable", error.message) }
        guard !devices.isEmpty else {
            return .object([
                "sent": 0, "delivered": 0, "failed": 0, "removed": 0, "results": .array([]),
                "message": "No iOS device is registered for this user: the app registers its token in device_tokens once notifications are allowed.",
            ])
        }
        var custom: [String: JSONValue] = [:]
        if let deeplink = request.deeplink { custom["deeplink"] = .string(deeplink) }
        let notification = APNsNotification(token: "", payload: .alert(title: request.title, body: request.body, custom: custom))
        let delivery = DeviceDelivery(clients: clients, rows: rows)
        let environment = request.environment ?? clients.settings.defaultEnvironment
        let results = await withTaskGroup(of: (Int, DeviceResult).self) { group in
            for (index, device) in devices.enumerated() {
                group.addTask { (index, await delivery.deliver(notification, to: device, requested: environment)) }
            }
            var results: [(Int, DeviceResult)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let delivered = results.filter(\.outcome.delivered).count
        return .object([
            "sent": .int(results.count), "delivered": .int(delivered), "failed": .int(results.count - delivered),
            "removed": .int(results.filter(\.removed).count), "results": .array(results.map(\.json)),
        ])
    }

    /// Registers the caller's device from `{token, platform, environment, bundle_id}`; returns its row.
    public func register(userID: String, body: JSONValue) throws(PushError) -> [String: JSONValue] {
        try registration.register(body, userID: userID)
    }

    /// Removes the caller's device; returns how many rows went (0 or 1).
    public func unregister(userID: String, token: String) throws(PushError) -> Int {
        try registration.unregister(token: token, userID: userID)
    }

    /// Closes the APNs connections.
    public func shutdown() { clients?.shutdown() }
}

import Foundation
import SoarAPNs
import SoarCore
import Synchronization

/// One long-lived APNs client per environment, made on first use and shared by every send, so
/// pushes multiplex over a few HTTP/2 connections instead of opening one each.
final class APNsClients: Sendable {
    let settings: PushSettings
    private let clients = Locked<[PushEnvironment: APNsClient]>([:])

    init(settings: PushSettings) { self.settings = settings }

    func client(for environment: PushEnvironment) throws(APNsConfigurationError) -> APNsClient {
        try clients.withLock { (clients) throws(APNsConfigurationError) -> APNsClient in
            if let client = clients[environment] { return client }
            var configuration = APNsConfiguration(
                credentials: settings.credentials, environment: settings.destinations[environment] ?? .sandbox, bundleID: settings.bundleID)
            configuration.caFile = settings.caFile
            configuration.timeout = .seconds(10)
            let client = try APNsClient(configuration)
            clients[environment] = client
            return client
        }
    }

    func shutdown() {
        clients.withLock { clients in
            for client in clients.values { client.shutdown() }
            clients = [:]
        }
    }
}

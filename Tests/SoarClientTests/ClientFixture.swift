import Foundation
import FoundationNetworking
import SoarClient
import SoarTesting

/// A client of an in-process `soar serve`, its requests passing through a transport a test can cut off.
struct ClientFixture {
    let server: ServerFixture
    let transport: FakeTransport
    let store: InMemorySecureStore
    let client: Soar

    init(server: ServerFixture? = nil, now: @escaping @Sendable () -> Date = Date.init) throws {
        let server = try server ?? ServerFixture()
        self.server = server
        transport = FakeTransport(passingTo: URLSessionTransport())
        store = InMemorySecureStore()
        client = Soar(supabaseURL: URL(string: server.url)!, supabaseKey: server.anonKey, store: store, transport: transport, now: now)
    }

    /// Another client (another device) of the same server.
    func another() -> Soar {
        Soar(supabaseURL: URL(string: server.url)!, supabaseKey: server.anonKey, store: InMemorySecureStore())
    }

    /// How many requests went to a path (and query text).
    func requests(containing text: String) -> Int {
        transport.requests.count { $0.url?.absoluteString.contains(text) == true }
    }

    static func email() -> String { "user-\(UUID().uuidString.prefix(8).lowercased())@example.com" }
}


import Foundation
import SoarClient
import SoarClientTesting
import Testing
import TodoKit

/// The app's own logic against SoarClientTesting's fakes: no server, no network, nothing of the
/// server built.
@MainActor @Suite(.timeLimit(.minutes(1))) struct TodoKitTests {
    func app(_ backend: InMemoryBackend) -> TodoApp {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("todoapp-\(UUID().uuidString)")
        return TodoApp(url: backend.url, anonKey: "test", folder: folder, transport: backend)
    }

    @Test func theAppsRoutesAreItsOwn() {
        #expect(AppRoutes.table.routes.count == 4, "every pattern is well-formed")
        #expect(AppRoutes.table.route(for: "todoapp:///todos/42") == AppRoute("todo", ["id": "42"]))
        #expect(AppRoutes.table.route(for: "https://todo.example.com/inbox") == AppRoute("inbox"))
        #expect(AppRoutes.table.route(for: "soar:///todos") == nil, "the seed app's scheme is not this app's")
    }

    @Test func offlineWritesWaitAndAreSentOnSync() async throws {
        let backend = InMemoryBackend()
        let app = app(backend)
        let user = try await app.client.auth.signUp(email: "ada@example.com", password: "correct-horse").user
        _ = try await app.todos.add(text: "milk", userId: user.id).get()
        backend.offline = true
        let queued = try await app.todos.add(text: "tea", userId: user.id).get()
        #expect(queued.sortOrder == 1, "the offline copy counts the first todo")
        #expect(await app.queue.pending.count == 1 && backend.rows("todos").count == 1)
        let stale = try await app.todos.list(userId: user.id).get()
        #expect(stale.isStale && stale.value.map(\.title) == ["milk", "tea"])
        backend.offline = false
        #expect(await app.queue.replay() == 1)
        #expect(backend.rows("todos").compactMap { $0["title"]?.stringValue }.sorted() == ["milk", "tea"])
    }

    @Test func theDevicesRowLeavesWithTheSession() async throws {
        let backend = InMemoryBackend()
        let app = app(backend)
        let following = await app.registrar.start()
        defer { following.cancel() }
        try await app.client.auth.signUp(email: "ada@example.com", password: "correct-horse")
        try await app.registrar.tokenChanged(String(repeating: "ab", count: 32))
        #expect(backend.rows("device_tokens").count == 1)
        await app.client.auth.signOut()
        let waiting = await app.registrar.hasPendingWipe
        #expect(backend.rows("device_tokens").isEmpty && !waiting)
    }

    @Test func aTapOpensTheAppsScreen() async throws {
        let controller = NotificationsController(
            center: FakeNotificationCenter(status: .authorized), registration: FakeRemoteRegistration(token: nil), routes: AppRoutes.table)
        let push = IncomingNotification(payload: try Payload(object: ["aps": ["alert": ["title": "Milk"]], "deeplink": "todoapp:///todos/7"]))
        #expect(await controller.didReceive(push) == AppRoute("todo", ["id": "7"]))
        #expect(controller.router.consumePendingRoute() == AppRoute("todo", ["id": "7"]))
    }
}

/// Types from `soar gen types swift` (Sources/TodoKit/Database.swift) sit beside SoarClient's own.
@Suite(.timeLimit(.minutes(1))) struct GeneratedTypesTests {
    @Test func theyDecodeARowBesideSoarClientsModels() throws {
        let row = #"{"id":"6e1e5a8f-1a4b-4c66-9d2b-2f1f0e7d9a10","user_id":"6e1e5a8f-1a4b-4c66-9d2b-2f1f0e7d9a11","title":"milk","completed":false,"sort_order":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}"#
        let generated = try JSONCoding.decode(Database.Todo.self, from: Data(row.utf8))
        let model = try JSONCoding.decode(Todo.self, from: Data(row.utf8))
        #expect(generated.title == model.title && generated.sortOrder == model.sortOrder)
    }
}

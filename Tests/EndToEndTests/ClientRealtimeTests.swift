import Foundation
import SoarClient
import SoarCore
import SoarTesting
import Testing

/// SoarClient's realtime against `soar serve`: a user's own inserts arrive on their channel and
/// another user's never do, broadcasts reach the other member, a refused binding says why, and
/// the client comes back after the server restarts.
@MainActor @Suite(.timeLimit(.minutes(2))) struct ClientRealtimeTests {
    struct NewTodo: Encodable, Sendable { let title: String }

    static func first<Element: Sendable>(
        _ stream: AsyncStream<Element>, within seconds: Double = 5, where matches: @escaping @Sendable (Element) -> Bool = { _ in true }
    ) async -> Element? {
        await withTaskGroup(of: Element?.self) { group in
            group.addTask { for await element in stream where matches(element) { return element }; return nil }
            group.addTask { try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9)); return nil }
            let found = await group.next() ?? nil
            group.cancelAll()
            return found
        }
    }

    @Test func ownChangesBroadcastsRefusalsAndAReconnect() async throws {
        let dir = TemporaryDirectory("soar-client-realtime")
        let migrations = dir.path + "/migrations"
        #expect(try ProcessRunner.run(SoarBinary.path, ["init", "--migrations", migrations]).status == 0)
        try "alter publication supabase_realtime add table todos;\n".write(toFile: migrations + "/20260101000000_realtime.sql", atomically: true, encoding: .utf8)
        let database = try TestDatabase(directory: dir.path)
        var served = try ClientEndToEndTests.serve(dir, ["--port", "0", "--migrations", migrations], store: database)
        let ada = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        let bob = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        try await ada.auth.signUp(email: ClientEndToEndTests.email(), password: "correct-horse")
        try await bob.auth.signUp(email: ClientEndToEndTests.email(), password: "correct-horse")

        let adaChannel = ada.channel("ada")
        let adaChanges = adaChannel.changes(event: "INSERT", table: "todos")
        try await adaChannel.subscribe()
        let bobChannel = bob.channel("bob")
        let bobChanges = bobChannel.changes(event: "INSERT", table: "todos")
        try await bobChannel.subscribe()

        _ = try await ada.from("todos").insert(NewTodo(title: "live")).execute()
        let change = try #require(await Self.first(adaChanges))
        #expect(change.type == "INSERT" && change.table == "todos" && change.record?.objectValue?["title"] == "live")
        let row = try change.decode([String: JSONValue].self)
        #expect(row["completed"] == .bool(false))
        #expect(await Self.first(bobChanges, within: 0.5) == nil, "bob never sees ada's row")

        // Broadcast between two members of one channel.
        let room = ada.channel("room")
        try await room.subscribe()
        let bobRoom = bob.channel("room")
        let heard = bobRoom.broadcasts(event: "wave")
        try await bobRoom.subscribe()
        try await room.broadcast(event: "wave", payload: ["from": "ada"])
        #expect(await Self.first(heard) == ["from": "ada"])

        // A table outside the publication: refused, saying why.
        let profiles = ada.channel("profiles")
        _ = profiles.changes(table: "profiles")
        let refused = await #expect(throws: AppError.self) { try await profiles.subscribe() }
        #expect(refused?.message.contains("supabase_realtime publication") == true, "\(String(describing: refused))")

        // The server restarts on the same port: the client reconnects and joins again.
        let port = served.url.port ?? 0
        #expect(served.process.stop() == 0)
        #expect(await Self.first(adaChannel.statusChange) { $0 == .unsubscribed } != nil, "the drop is seen")
        served = try ClientEndToEndTests.serve(dir, ["--port", String(port), "--migrations", migrations], store: database)
        #expect(await Self.first(adaChannel.statusChange, within: 10) { $0 == .subscribed } != nil, "joined again")
        _ = try await ada.from("todos").insert(NewTodo(title: "after the restart")).execute()
        let again = try #require(await Self.first(adaChanges, within: 10))
        #expect(again.record?.objectValue?["title"] == "after the restart")
        await ada.realtime.disconnect()
        await bob.realtime.disconnect()
        #expect(served.process.stop() == 0)
    }
}

import Foundation
import SoarClient
import SoarTesting
import Testing

/// What an app builds on SoarClient's public API alone, against the `soar` binary: a device-token
/// registry of its own that removes its row on sign-out, a database function of its own migration
/// through `rpc`, and a raw request.
@MainActor @Suite(.timeLimit(.minutes(2))) struct ClientOpenSeamsTests {
    /// A registry an app writes itself: the ending session's token goes in `Authorization`, and a
    /// delete that matched nothing is reported, not taken as done.
    struct OwnRegistry: DeviceTokenRegistry {
        let client: Soar

        func register(_ registration: DeviceToken, accessToken: String) async throws(AppError) {
            try await client.from("device_tokens").upsert(registration, onConflict: "user_id,token")
                .setHeader(name: "Authorization", value: "Bearer " + accessToken).execute()
        }

        func unregister(token: String, userId: UUID, accessToken: String) async throws(AppError) {
            let gone: [DeviceToken] = try await client.from("device_tokens").delete()
                .eq("user_id", value: userId).eq("token", value: token).select()
                .setHeader(name: "Authorization", value: "Bearer " + accessToken).execute().value
            if gone.isEmpty { throw AppError(.notFound, "The device's row was not deleted.") }
        }
    }

    @Test func anOwnRegistryAFunctionAndARawRequest() async throws {
        let dir = TemporaryDirectory("soar-open-seams")
        let migrations = dir.path + "/migrations"
        #expect(try ProcessRunner.run(SoarBinary.path, ["init", "--migrations", migrations]).status == 0)
        try """
            create function count_titled(wanted text) returns bigint language sql stable
              as $$ select count(*) from todos where title = wanted $$;
            """.write(toFile: migrations + "/20260101000000_count_titled.sql", atomically: true, encoding: .utf8)
        let served = try ClientEndToEndTests.serve(dir, ["--port", "0", "--migrations", migrations])
        defer { #expect(served.process.stop() == 0) }
        let client = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        let session = try await client.auth.signUp(email: ClientEndToEndTests.email(), password: "correct-horse")

        // The app's own registry follows the session, and its wipe acts as the ending session.
        let registrar = PushTokenRegistrar(registry: OwnRegistry(client: client), auth: client.auth, store: InMemorySecureStore(), environment: "sandbox")
        let following = await registrar.start()
        defer { following.cancel() }
        try await registrar.tokenChanged(String(repeating: "ab", count: 32))
        let rows = served.url.absoluteString + "/rest/v1/device_tokens?select=user_id,token"
        let before = try await ClientEndToEndTests.get(rows, key: served.service)
        #expect(before.arrayValue?.count == 1 && before.arrayValue?.first?.objectValue?["user_id"] == .string(session.user.id.uuidString.lowercased()))
        await client.auth.signOut()
        #expect(try await ClientEndToEndTests.get(rows, key: served.service).arrayValue?.isEmpty == true, "the row left with the session")
        #expect(await !registrar.hasPendingWipe)

        // A function of the app's own migration, and a request the typed API lacks.
        try await client.auth.signIn(email: session.user.email ?? "", password: "correct-horse")
        struct NewTodo: Encodable, Sendable { let title: String }
        try await client.from("todos").insert([NewTodo(title: "tea"), NewTodo(title: "tea"), NewTodo(title: "milk")]).execute()
        let count: Int = try await client.rpc("count_titled", params: ["wanted": "tea"]).execute().value
        #expect(count == 2)
        let user = try JSONValue.read(try await client.request("GET", path: "auth/v1/user"))
        #expect(user.objectValue?["email"] == .string(session.user.email ?? ""))
        let missing = await #expect(throws: AppError.self) { try await client.rpc("no_such_function").execute() }
        #expect(missing?.status == 404)
    }
}

import Foundation
import SoarClient
import SoarCore
import SoarTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// SoarClient, as an app runs it, against the `soar` binary: `soar serve --with-emulator`.
@MainActor @Suite(.timeLimit(.minutes(2))) struct ClientEndToEndTests {
    /// A running `soar serve` and what its banner says.
    struct Served {
        let process: BackgroundProcess
        let url: URL
        let anon: String
        let service: String
        let control: String?
    }

    static func serve(_ dir: TemporaryDirectory, _ extra: [String] = [], store: TestDatabase? = nil, environment: [String: String] = [:]) throws -> Served {
        let store = try store ?? TestDatabase(directory: dir.path)
        let process = try BackgroundProcess(
            SoarBinary.path, ["serve"] + store.arguments + extra, environment: store.environment.merging(environment) { $1 })
        func value(_ prefix: String) throws -> String {
            let line = try #require(process.readLine(timeout: 30), "\(process.standardError)")
            #expect(line.hasPrefix(prefix), "\(line)")
            return String(line.dropFirst(prefix.count))
        }
        let url = try value("API URL: ")
        let anon = try value("anon key: ")
        let service = try value("service_role key: ")
        _ = try value("database: ")
        var control: String?
        if extra.contains("--with-emulator") {
            _ = try value("push: ")
            control = try #require(process.readLine()?.components(separatedBy: "control ").last)
        }
        return Served(process: process, url: URL(string: url)!, anon: anon, service: service, control: control)
    }

    static func email() -> String { "user-\(UUID().uuidString.prefix(8).lowercased())@example.com" }

    /// GETs a URL with the service key (or none), as JSON.
    static func get(_ url: String, key: String? = nil) async throws -> JSONValue {
        var request = URLRequest(url: URL(string: url)!)
        if let key {
            request.setValue(key, forHTTPHeaderField: "apikey")
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        }
        let (data, _) = try await URLSessionTransport().send(request)
        return try JSONValue.read(data)
    }

    /// The code a mail to `email` carries, read from the development mailbox.
    static func mailedCode(_ served: Served, to email: String) async throws -> String {
        let mails = try await get(served.url.absoluteString + "/auth/v1/mailbox", key: served.service)
        let text = mails.arrayValue?.last { $0.objectValue?["to"] == .string(email) }?.objectValue?["text"]?.stringValue ?? ""
        return try #require(text.firstMatch(of: /\b(\d{6})\b/).map { String($0.1) }, "\(mails)")
    }

    @Test func codesRecoveryAndTheirFriendlyErrors() async throws {
        let dir = TemporaryDirectory("soar-client-e2e")
        let served = try Self.serve(dir, ["--port", "0"])
        let client = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        let email = Self.email()
        try await client.auth.sendSignInCode(email: email)
        let code = try await Self.mailedCode(served, to: email)
        let session = try await client.auth.verify(email: email, code: code)
        #expect(session.user.email == email)
        // Used once: the second time reads as an expired code, in words a user acts on.
        let again = await #expect(throws: AppError.self) { try await client.auth.verify(email: email, code: code) }
        #expect(again?.message.contains("expired or was already used") == true, "\(String(describing: again))")
        let unknown = await #expect(throws: AppError.self) { try await client.auth.sendSignInCode(email: Self.email(), createUser: false) }
        #expect(unknown?.message == "No account uses that email address.", "\(String(describing: unknown))")

        // Recovery: the mailed code signs in, the new password works.
        let owner = Self.email()
        try await Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore()).auth.signUp(email: owner, password: "first-password")
        let recovering = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        try await recovering.auth.sendPasswordRecovery(email: owner)
        let recovered = try await recovering.auth.verify(email: owner, code: try await Self.mailedCode(served, to: owner), type: .recovery)
        #expect(recovered.user.email == owner)
        // Without the app's ids, Sign in with Apple is off, and says so.
        let apple = await #expect(throws: AppError.self) { try await client.auth.signInWithApple(idToken: "x.y.z", nonce: nil) }
        #expect(apple?.message == "This way of signing in is turned off for this app.", "\(String(describing: apple))")
        #expect(served.process.stop() == 0)
    }

    @Test func theAppsPushPipelineFromSignUpToSignOut() async throws {
        let dir = TemporaryDirectory("soar-client-e2e")
        let served = try Self.serve(dir, ["--port", "0", "--with-emulator", "--emulator-port", "0", "--emulator-dir", dir.path + "/emulator"])
        let client = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: FileSecureStore(directory: URL(fileURLWithPath: dir.path + "/keychain")))
        let tokenBytes = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let token = tokenBytes.map { String(format: "%02x", $0) }.joined()
        let center = FakeNotificationCenter(status: .notDetermined, grants: true)
        let registration = FakeRemoteRegistration(token: tokenBytes)
        let registrar = PushTokenRegistrar(
            registry: DataAPIDeviceTokens(client: client), auth: client.auth, store: InMemorySecureStore(), environment: "sandbox")
        let controller = NotificationsController(
            center: center, registration: registration, routes: .seedApp, registrar: registrar, inboxSync: ServerInbox(client: client))
        registration.deliver { data in await controller.handleDeviceToken(data) }
        let registering = await registrar.start()
        let following = await controller.follow(client.auth)
        defer {
            registering.cancel()
            following.cancel()
        }
        let rows = { try await Self.get(served.url.absoluteString + "/rest/v1/device_tokens?select=user_id,token", key: served.service).arrayValue ?? [] }

        // 1. Sign up (and another user, for the switch later).
        let bob = Self.email()
        try await Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore()).auth.signUp(email: bob, password: "correct-horse")
        let ada = try await client.auth.signUp(email: Self.email(), password: "correct-horse").user.id.uuidString.lowercased()

        // 2-3. Permission granted; the token arrives and its row appears.
        #expect(await controller.requestAuthorization())
        #expect(controller.pushToken == token)
        let own: [DeviceToken] = try await client.from("device_tokens").select().execute().value
        #expect(own.map(\.token) == [token] && own.first?.userId.uuidString.lowercased() == ada)

        // 4. A test push is sent and arrives at the emulator.
        let model = NotificationsViewModel(controller: controller, sender: PushTestSender(client: client))
        #expect(model.canSendTestPush)
        await model.sendTestPush(PushTestRequest(title: "Hello", body: "From the e2e test"))
        let result = try #require(model.testPush.value, "\(model.testPush)")
        #expect(result.sent == 1 && result.delivered == 1 && result.results.first.map { token.hasPrefix($0.token.prefix(8)) } == true)
        let control = try #require(served.control)
        let deliveries = try await Self.get(control + "/deliveries").arrayValue ?? []
        let delivered = try #require(deliveries.first { $0.objectValue?["token"]?.stringValue == token }?.objectValue?["payload"])

        // 5. The payload, fed back through the controller, lands in the inbox and routes.
        let notification = IncomingNotification(identifier: "e2e", payload: try Payload(json: delivered.jsonData))
        #expect(await controller.willPresent(notification) == [.banner, .list, .sound])
        let soarID = try #require(notification.serverID, "the server's inbox row id travels in the payload")
        #expect(controller.inbox.entries.first?.id == soarID && controller.inbox.entries.first?.title == "Hello")
        #expect(await controller.didReceive(notification) == AppRoute("notifications"))
        #expect(controller.router.consumePendingRoute() == AppRoute("notifications"))

        // 6. The open is reported and counted on the server.
        let opened = try await Self.get(
            served.url.absoluteString + "/rest/v1/notifications?select=id&opened_at=not.is.null", key: served.service).arrayValue ?? []
        #expect(opened.compactMap { $0.objectValue?["id"]?.stringValue } == [soarID])

        // 7. User switch: the old user's row is gone, the new user's is there.
        let bobID = try await client.auth.signIn(email: bob, password: "correct-horse").user.id.uuidString.lowercased()
        #expect(await waitUntil {
            let now = (try? await rows()) ?? []
            return now.count == 1 && now.first?.objectValue?["user_id"]?.stringValue == bobID
        })

        // 8. Sign out: no rows are left.
        await client.auth.signOut()
        #expect(try await rows().isEmpty)
        #expect(await waitUntil { controller.pushToken == nil })
        #expect(served.process.stop() == 0)
    }

    @Test func writesMadeWhileTheServerIsDownLandOnceInOrder() async throws {
        let dir = TemporaryDirectory("soar-client-e2e")
        let store = try TestDatabase(directory: dir.path)
        var served = try Self.serve(dir, ["--port", "0"], store: store)
        let port = try #require(served.url.port)
        let client = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: FileSecureStore(directory: URL(fileURLWithPath: dir.path + "/keychain")))
        let user = try await client.auth.signUp(email: Self.email(), password: "correct-horse").user.id
        let queue = WriteQueue(file: URL(fileURLWithPath: dir.path + "/writes.json"), client: client)
        let repository = TodosRepository(remote: TodosRemoteDataSource(
            client: client, cache: OfflineCache(directory: URL(fileURLWithPath: dir.path + "/cache")), writes: queue))
        let network = ProbeNetworkMonitor(probe: served.url.appendingPathComponent("auth/v1/health"))
        let replaying = await queue.replay(whenOnline: network)
        defer { replaying.cancel() }

        let first = try #require(await repository.add(text: "first", userId: user).value)
        #expect(await repository.list(userId: user).value?.value.map(\.title) == ["first"], "the screen loads: the answer is cached")
        #expect(served.process.stop() == 0, "the server is cut")
        #expect(await network.check() == false)
        let second = try #require(await repository.add(text: "second", userId: user).value)
        #expect(await repository.toggle(first).value != nil)
        #expect(await repository.add(text: "third", userId: user).value != nil)
        #expect(await repository.delete(second).value != nil)
        #expect(await repository.add(text: "fourth", userId: user).value != nil)
        #expect(await queue.pending.count == 5)
        let stale = try #require(await repository.list(userId: user).value)
        #expect(stale.isStale, "reads come from the cache, marked stale")
        #expect(stale.value.map(\.title) == ["first", "third", "fourth"] && stale.value[0].completed, "with the queued writes applied")

        served = try Self.serve(dir, ["--port", String(port), "--console-port", "off"], store: store)
        #expect(await network.check() == true)
        #expect(await waitUntil { await queue.pending.isEmpty })
        let rows: [Todo] = try await client.from("todos").select().order("sort_order").execute().value
        #expect(rows.map(\.title) == ["first", "third", "fourth"], "every write once, in order")
        #expect(rows.map(\.sortOrder) == [0, 2, 3], "offline adds counted the queued ones for their place")
        #expect(rows.first?.completed == true)
        #expect(await queue.rejected.isEmpty)
        #expect(served.process.stop() == 0)
    }
}

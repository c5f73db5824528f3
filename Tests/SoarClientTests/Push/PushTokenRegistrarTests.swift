import Foundation
import SoarClient
import SoarCore
import SoarTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct PushTokenRegistrarTests {
    let token = String(repeating: "ab", count: 32)

    /// The device's rows on the server, read with the service key.
    func rows(_ fixture: ClientFixture) async throws -> [String] {
        let answer = try await fixture.server.call(
            "GET", "/rest/v1/device_tokens?select=user_id,token,environment,bundle_id", bearer: fixture.server.serviceKey,
            headers: ["apikey": fixture.server.serviceKey])
        return answer.rows.map { "\($0["user_id"]?.stringValue ?? ""):\($0["token"]?.stringValue ?? ""):\($0["environment"]?.stringValue ?? "-")" }
    }

    func registrar(_ fixture: ClientFixture, registry: (any DeviceTokenRegistry)? = nil) async -> (PushTokenRegistrar, Task<Void, Never>) {
        let registrar = PushTokenRegistrar(
            registry: registry ?? DataAPIDeviceTokens(client: fixture.client), auth: fixture.client.auth, store: fixture.store,
            environment: "sandbox", bundleId: "com.example.app")
        return (registrar, await registrar.start())
    }

    @Test func theRowFollowsTheSessionThroughSwitchesAndSignOut() async throws {
        let fixture = try ClientFixture()
        let (registrar, following) = await registrar(fixture)
        defer { following.cancel() }
        let ada = ClientFixture.email(), bob = ClientFixture.email()
        try await fixture.another().auth.signUp(email: bob, password: "correct-horse")
        let adaID = try await fixture.client.auth.signUp(email: ada, password: "correct-horse").user.id.uuidString.lowercased()
        try await registrar.tokenChanged(token)
        #expect(try await rows(fixture) == ["\(adaID):\(token):sandbox"])
        try await registrar.tokenChanged(token)
        #expect(try await rows(fixture).count == 1, "registering again is idempotent")

        let bobID = try await fixture.client.auth.signIn(email: bob, password: "correct-horse").user.id.uuidString.lowercased()
        #expect(await waitUntil { (try? await rows(fixture)) == ["\(bobID):\(token):sandbox"] }, "the old user's row is gone, the new one's is there")

        await fixture.client.auth.signOut()
        #expect(try await rows(fixture).isEmpty)
        #expect(await registrar.registered == nil)
    }

    @Test func theDevicesAttributesGoWithItsToken() async throws {
        let fixture = try ClientFixture()
        let registrar = PushTokenRegistrar(
            registry: DataAPIDeviceTokens(client: fixture.client), auth: fixture.client.auth, store: fixture.store,
            attributes: DeviceAttributes(appVersion: "2.1.0", locale: "fr_FR", timeZone: "Europe/Paris"))
        let following = await registrar.start()
        defer { following.cancel() }
        _ = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        try await registrar.tokenChanged(token)
        let answer = try await fixture.server.call(
            "GET", "/rest/v1/device_tokens?select=app_version,locale,time_zone", bearer: fixture.server.serviceKey, headers: ["apikey": fixture.server.serviceKey])
        #expect(answer.rows.first?["app_version"] == "2.1.0" && answer.rows.first?["locale"] == "fr_FR" && answer.rows.first?["time_zone"] == "Europe/Paris")
        following.cancel()

        // After an app update, the same token is registered again with the new version.
        let updated = PushTokenRegistrar(
            registry: DataAPIDeviceTokens(client: fixture.client), auth: fixture.client.auth, store: fixture.store,
            attributes: DeviceAttributes(appVersion: "2.2.0", locale: "fr_FR", timeZone: "Europe/Paris"))
        let again = await updated.start()
        defer { again.cancel() }
        try await updated.tokenChanged(token)
        let after = try await fixture.server.call(
            "GET", "/rest/v1/device_tokens?select=app_version", bearer: fixture.server.serviceKey, headers: ["apikey": fixture.server.serviceKey])
        #expect(after.rows.map { $0["app_version"] } == ["2.2.0"])
    }

    @Test func aFailedWipeIsRetriedBeforeTheNextSignInRegisters() async throws {
        let fixture = try ClientFixture()
        let (registrar, following) = await registrar(fixture)
        defer { following.cancel() }
        let adaID = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id.uuidString.lowercased()
        try await registrar.tokenChanged(token)
        fixture.transport.offline = true
        await fixture.client.auth.signOut()
        #expect(fixture.client.auth.currentSession == nil, "signing out works offline")
        #expect(await registrar.hasPendingWipe)
        let kept = try #require(try fixture.store.data(for: "soar.push-registrar"))
        #expect(String(decoding: kept, as: UTF8.self).contains("refreshToken"), "kept in the secure store for a relaunch")
        #expect(try await rows(fixture) == ["\(adaID):\(token):sandbox"])

        fixture.transport.offline = false
        let bobID = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id.uuidString.lowercased()
        #expect(await waitUntil { (try? await rows(fixture)) == ["\(bobID):\(token):sandbox"] })
        #expect(await !registrar.hasPendingWipe)
    }

    @Test func aMissingTableOrServerIsLoggedNotThrownAndRetried() async throws {
        let fixture = try ClientFixture()
        let registry = FakeDeviceTokenRegistry()
        let (registrar, following) = await registrar(fixture, registry: registry)
        defer { following.cancel() }
        let user = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        registry.fail(with: AppError(status: 404, body: Data(#"{"code":"PGRST205","message":"Could not find the table"}"#.utf8)))
        try await registrar.tokenChanged(token)
        #expect(await registrar.registered == nil && registry.rows.isEmpty)
        registry.fail(with: nil)
        await registrar.retry()
        #expect(registry.rows == [FakeDeviceTokenRegistry.key(user, token)])
    }

    @Test func seed001sCreatorAPIRegistersAndDeletes() async throws {
        let fixture = try ClientFixture()
        let (registrar, following) = await registrar(fixture, registry: CreatorAPIDeviceTokens(client: fixture.client))
        defer { following.cancel() }
        let id = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id.uuidString.lowercased()
        try await registrar.tokenChanged(token)
        #expect(try await rows(fixture) == ["\(id):\(token):sandbox"])
        await fixture.client.auth.signOut()
        #expect(try await rows(fixture).isEmpty)
    }

    @Test func theRetriedWipeComesBeforeTheNextRegistration() async throws {
        let fixture = try ClientFixture()
        let registry = FakeDeviceTokenRegistry()
        let (registrar, following) = await registrar(fixture, registry: registry)
        defer { following.cancel() }
        let ada = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        try await registrar.tokenChanged(token)
        registry.fail(with: AppError.network())
        await fixture.client.auth.signOut()
        #expect(await registrar.hasPendingWipe)
        registry.fail(with: nil)
        let bob = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        #expect(await waitUntil { registry.rows == [FakeDeviceTokenRegistry.key(bob, token)] })
        let calls = registry.calls
        let retried = try #require(calls.lastIndex { if case .unregister(ada, _, _) = $0 { true } else { false } })
        let registered = try #require(calls.firstIndex { if case .register(bob, _, _) = $0 { true } else { false } })
        #expect(retried < registered, "\(calls)")
        #expect(await !registrar.hasPendingWipe)
    }

    @Test func textThatIsNotATokenIsRefusedAndTheRowStays() async throws {
        let fixture = try ClientFixture()
        let (registrar, following) = await registrar(fixture)
        defer { following.cancel() }
        try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        try await registrar.tokenChanged(token)
        let refused = await #expect(throws: AppError.self) { try await registrar.tokenChanged("nothex") }
        #expect(refused?.message.contains("Not a device token") == true && refused?.code == .validation)
        #expect(await registrar.token == token)
        await fixture.client.auth.signOut()
        #expect(try await rows(fixture).isEmpty, "the real token's row is the one wiped")
    }

    @Test func aSignOutNeverLeavesTheUsersRowBehind() async throws {
        let fixture = try ClientFixture()
        let (registrar, following) = await registrar(fixture)
        defer { following.cancel() }
        for _ in 0..<5 {
            try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
            // A token and a sign-out arriving together: the wipe must win.
            async let registering: Void = registrar.tokenChanged(token)
            async let signingOut: Void = fixture.client.auth.signOut()
            _ = try await (registering, signingOut)
            await registrar.retry()
            #expect(try await rows(fixture).isEmpty)
        }
    }
}

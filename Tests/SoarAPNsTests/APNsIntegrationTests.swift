import Foundation
import SoarCore
import SoarCrypto
import SoarEmulator
import SoarTesting
import Testing

@testable import SoarAPNs

/// SoarAPNs over real HTTP/2 + TLS against the emulator.
@Suite(.timeLimit(.minutes(5))) struct APNsIntegrationTests {
    static func client(_ fixture: EmulatorFixture, now: @escaping @Sendable () -> Date = { Date() }, retry: RetryPolicy = RetryPolicy(maxRetries: 5, baseDelay: .milliseconds(1), maxDelay: .milliseconds(20))) throws -> APNsClient {
        var configuration = APNsConfiguration(
            credentials: .token(teamID: fixture.teamID, keyID: fixture.keyID, key: fixture.key),
            environment: .custom(url: fixture.url), bundleID: EmulatorFixture.topic)
        configuration.caFile = fixture.caFile
        configuration.retry = retry
        configuration.now = now
        return try APNsClient(configuration)
    }

    @Test func everyPushTypeIsDelivered() async throws {
        let fixture = try EmulatorFixture()
        let client = try Self.client(fixture)
        for type in PushType.all {
            let outcome = await client.send(APNsNotification(token: token, payload: .alert(title: type.rawValue, body: "b"), pushType: type))
            #expect(outcome.isDelivered, "\(type): \(outcome)")
        }
        let topics = fixture.emulator.state.deliveries.map { d in d.headers.first { $0.0 == "apns-topic" }!.1 }
        #expect(topics == PushType.all.map { $0.topic(forBundleID: EmulatorFixture.topic) })
    }

    @Test func deliveredCarriesIDsAndTheEmulatorSawOneProviderToken() async throws {
        let fixture = try EmulatorFixture()
        let client = try Self.client(fixture)
        let id = UUID()
        guard case .delivered(let apnsID, let uniqueID) = await client.send(APNsNotification(token: token, payload: .alert(title: "t", body: "b"), apnsID: id)) else {
            Issue.record("not delivered")
            return
        }
        #expect(apnsID == id.uuidString.lowercased() && uniqueID != nil)
        for _ in 0..<20 { _ = await client.sendAlert(title: "t", body: "b", to: token) }
        #expect(fixture.emulator.state.counters.rejected.isEmpty, "one token reused: no TooManyProviderTokenUpdates")
    }

    @Test func rejectionsComeBackWithApplesReasons() async throws {
        let fixture = try EmulatorFixture {
            $0.allowedTopics = [EmulatorFixture.topic]
            $0.bad = ["baad"]
        }
        _ = try fixture.control("POST", "/tokens/\(token)/unregister", body: #"{"timestamp":1700000000123}"#)
        let client = try Self.client(fixture)
        let gone = await client.sendAlert(title: "t", body: "b", to: token).failure
        #expect(gone?.status == 410 && gone?.reason == .unregistered && gone?.isInvalidToken == true)
        #expect(gone?.timestamp == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(await client.sendAlert(title: "t", body: "b", to: "baad").failure?.reason == .badDeviceToken)
        let elsewhere = await client.send(APNsNotification(token: "abcd", payload: Payload(), topic: "com.other")).failure
        #expect(elsewhere?.reason == .topicDisallowed && elsewhere?.classification == .permanent)
    }

    @Test func aKeyTheServerDoesNotKnowIsInvalidProviderToken() async throws {
        let fixture = try EmulatorFixture()
        var configuration = APNsConfiguration(credentials: .token(teamID: fixture.teamID, keyID: "UNKNOWN001", key: try P256Key.generate()), environment: .custom(url: fixture.url), bundleID: "b")
        configuration.caFile = fixture.caFile
        let failure = try await APNsClient(configuration).sendAlert(title: "t", body: "b", to: token).failure
        #expect(failure?.status == 403 && failure?.reason == .invalidProviderToken)
    }

    @Test func aClockTwoHoursSlowGetsExpiredProviderTokenAfterOneRefresh() async throws {
        let fixture = try EmulatorFixture()
        let failure = try await Self.client(fixture, now: { Date() - 7200 }).sendAlert(title: "t", body: "b", to: token).failure
        #expect(failure?.reason == .expiredProviderToken && failure?.attempts == 2)
    }

    @Test func retries503AndInjected429() async throws {
        let fixture = try EmulatorFixture { $0.faults.status = 503; $0.faults.every = 2 }
        let client = try Self.client(fixture)
        for _ in 0..<6 {
            let outcome = await client.sendAlert(title: "t", body: "b", to: token)
            #expect(outcome.isDelivered)
        }
        #expect(fixture.emulator.state.counters.accepted == 6)
        #expect(fixture.emulator.state.counters.injected == 5, "requests 2, 4, ... 10 were refused and retried")
        let noRetry = try Self.client(fixture, retry: .none)
        _ = try fixture.control("POST", "/faults", body: #"{"status":429,"every":1}"#)
        let limited = await noRetry.sendAlert(title: "t", body: "b", to: token).failure
        #expect(limited?.status == 429 && limited?.reason == .tooManyRequests && limited?.classification == .retryable)
    }

    /// GOAWAY every 150 streams and a dropped connection every 400: nothing is lost.
    @Test func serverClosingConnectionsMidBatchLosesNothing() async throws {
        let fixture = try EmulatorFixture { $0.faults.goawayAfter = 150; $0.deliveryLog = nil }
        let client = try Self.client(fixture)
        let notifications = (0..<2000).lazy.map { APNsNotification(token: token, payload: .alert(title: "\($0)", body: "b")) }
        var delivered = Set<Int>()
        var failures: [String] = []
        for await result in client.send(notifications, maxInFlight: 500) {
            if result.outcome.isDelivered { delivered.insert(result.index) } else { failures.append("\(result.outcome)") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        #expect(delivered.count == 2000)
        #expect(fixture.emulator.state.counters.connectionsOpened > 5)
        let counters = fixture.emulator.state.counters
        #expect(counters.accepted == 2000, "streams past GOAWAY's last one are refused, not recorded and sent again; \(counters)")

        _ = try fixture.control("POST", "/faults", body: #"{"goaway_after":null,"drop_after":400}"#)
        var droppedAndRetried = 0
        for await result in client.send((0..<1000).lazy.map { _ in APNsNotification(token: token, payload: Payload()) }, maxInFlight: 300) {
            if result.outcome.isDelivered { droppedAndRetried += 1 }
        }
        #expect(droppedAndRetried == 1000)
        let state = fixture.emulator.state
        #expect(eventually { state.counters.acceptedAnswered + state.counters.acceptedAnswerLost == state.counters.accepted })
    }

    @Test func answersLostWithADroppedConnectionAreReportedAsPossiblyDelivered() async throws {
        let fixture = try EmulatorFixture { $0.faults.dropAfter = 50; $0.deliveryLog = nil }
        let client = try Self.client(fixture, retry: .none)
        var delivered = 0, unknown = 0, failed: [String] = []
        for await result in client.send((0..<600).lazy.map { _ in APNsNotification(token: token, payload: Payload()) }, maxInFlight: 300) {
            switch result.outcome {
            case .delivered: delivered += 1
            case .failed(let failure) where failure.mayHaveBeenDelivered && failure.reason == APNsFailure.deliveryUnknown: unknown += 1
            case .failed(let failure): failed.append(failure.description)
            }
        }
        let state = fixture.emulator.state
        #expect(failed.isEmpty, "\(failed.prefix(3))")
        #expect(delivered + unknown == 600 && unknown > 0)
        #expect(eventually { state.counters.acceptedAnswered + state.counters.acceptedAnswerLost == state.counters.accepted })
        let counters = state.counters
        #expect(counters.acceptedAnswerLost > 0 && unknown >= counters.acceptedAnswerLost, "every recorded delivery whose answer was lost is one the client calls unknown")
    }

    @Test func certificateAuthentication() async throws {
        let clientCA = try CertificateAuthority.generate(commonName: "client CA")
        let dir = TemporaryDirectory()
        let caFile = try dir.write("client-ca.pem", clientCA.certificatePEM)
        let fixture = try EmulatorFixture { $0.clientCAFile = caFile }
        let issued = try clientCA.issueClient(commonName: EmulatorFixture.topic)
        let cert = try dir.write("client.pem", issued.certificatePEM)
        let key = try dir.write("client-key.pem", try issued.key.privatePEM())
        var configuration = APNsConfiguration(credentials: .certificate(.init(certificateFile: cert, keyFile: key)), environment: .custom(url: fixture.url), bundleID: EmulatorFixture.topic)
        configuration.caFile = fixture.caFile
        #expect(try await APNsClient(configuration).sendAlert(title: "t", body: "b", to: token).isDelivered)
    }

    @Test func certificateAuthenticationWithAPasswordProtectedPKCS12() async throws {
        let clientCA = try CertificateAuthority.generate(commonName: "client CA")
        let dir = TemporaryDirectory()
        let fixture = try EmulatorFixture { $0.clientCAFile = try? dir.write("client-ca.pem", clientCA.certificatePEM) }
        let issued = try clientCA.issueClient(commonName: EmulatorFixture.topic)
        let cert = try dir.write("client.pem", issued.certificatePEM)
        let key = try dir.write("client-key.pem", try issued.key.privatePEM())
        let p12 = dir.path + "/client.p12"
        let export = try ProcessRunner.run("openssl", ["pkcs12", "-export", "-in", cert, "-inkey", key, "-out", p12, "-passout", "pass:s3cret"])
        #expect(export.status == 0, "\(export.stderr)")
        func configuration(password: String) -> APNsConfiguration {
            var configuration = APNsConfiguration(credentials: .certificate(.init(certificateFile: p12, password: password)), environment: .custom(url: fixture.url), bundleID: EmulatorFixture.topic)
            configuration.caFile = fixture.caFile
            return configuration
        }
        #expect(try await APNsClient(configuration(password: "s3cret")).sendAlert(title: "t", body: "b", to: token).isDelivered)
        #expect(fixture.emulator.state.deliveries.count == 1)
        #expect { _ = try APNsClient(configuration(password: "wrong")) } throws: { "\($0)".contains("wrong password") }
    }

    @Test func unreachableServerIsARetryableConnectionFailure() async throws {
        var configuration = APNsConfiguration(credentials: .token(teamID: "T", keyID: "K", key: try P256Key.generate()), environment: .custom(url: "https://127.0.0.1:1"), bundleID: "b")
        configuration.retry = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(1), maxDelay: .milliseconds(1))
        let failure = try await APNsClient(configuration).sendAlert(title: "t", body: "b", to: token).failure
        #expect(failure?.status == 0 && failure?.classification == .retryable && failure?.attempts == 2)
    }
}

/// Idle connections are checked with HTTP/2 PING and stay usable.
@Suite(.timeLimit(.minutes(5))) struct APNsPingTests {
    @Test func idleConnectionsArePingedAndKeptOpen() async throws {
        let fixture = try EmulatorFixture()
        var configuration = APNsConfiguration(
            credentials: .token(teamID: fixture.teamID, keyID: fixture.keyID, key: fixture.key),
            environment: .custom(url: fixture.url), bundleID: EmulatorFixture.topic)
        configuration.caFile = fixture.caFile
        configuration.pingInterval = .milliseconds(100)
        let client = try APNsClient(configuration)
        #expect(await client.sendAlert(title: "t", body: "b", to: token).isDelivered)
        // The transport's loop runs on the monotonic clock: wait for two PINGs, bounded.
        let deadline = ContinuousClock.now + .seconds(10)
        while fixture.emulator.state.counters.pings < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(fixture.emulator.state.counters.pings >= 2)
        #expect(await client.sendAlert(title: "t", body: "b", to: token).isDelivered)
        #expect(fixture.emulator.state.counters.connectionsOpened == 1, "the pinged connection was reused")
        client.shutdown()
    }
}

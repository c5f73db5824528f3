import Foundation
import SoarCore
import SoarCrypto
import SoarEmulator
import SoarHTTP2
import SoarTesting
import Synchronization
import Testing

@testable import SoarAPNs

/// The base URL the transport connects to.
@Suite(.timeLimit(.minutes(5))) struct EndpointTests {
    @Test func readsSchemeHostAndPort() {
        let apple = Endpoint(baseURL: "https://api.push.apple.com")
        #expect(apple?.tls == true && apple?.port == 443 && apple?.authority == "api.push.apple.com:443")
        #expect(Endpoint(baseURL: "https://api.sandbox.push.apple.com:2197")?.port == 2197)
        let cleartext = Endpoint(baseURL: "http://127.0.0.1:8080/")
        #expect(cleartext?.tls == false && cleartext?.host == "127.0.0.1" && cleartext?.authority == "127.0.0.1:8080")
        let v6 = Endpoint(baseURL: "https://[::1]:2197")
        #expect(v6?.host == "::1" && v6?.authority == "[::1]:2197")
    }

    @Test func refusesWhatIsNotAnHTTPURL() {
        for url in ["ftp://x", "https://", "https://host:0", "https://host:99999", "https://[::1", "https://[::1]x", "api.push.apple.com"] {
            #expect(Endpoint(baseURL: url) == nil, "\(url)")
        }
    }
}

/// The nghttp2 transport against the emulator: TLS checks, cleartext, IPv6, limits and timeouts.
@Suite(.timeLimit(.minutes(5))) struct TransportTests {
    static func client(_ fixture: EmulatorFixture, url: String? = nil, caFile: String? = nil, configure: (inout APNsConfiguration) -> Void = { _ in }) throws -> APNsClient {
        var configuration = APNsConfiguration(
            credentials: .token(teamID: fixture.teamID, keyID: fixture.keyID, key: fixture.key),
            environment: .custom(url: url ?? fixture.url), bundleID: EmulatorFixture.topic)
        configuration.caFile = caFile ?? fixture.caFile
        configuration.retry = .none
        configure(&configuration)
        return try APNsClient(configuration)
    }

    @Test func aServerCertificateFromAnotherCAIsRefused() async throws {
        let fixture = try EmulatorFixture()
        let other = try EmulatorFixture()
        let failure = try await Self.client(fixture, caFile: other.caFile).sendAlert(title: "t", body: "b", to: token).failure
        #expect(failure?.detail?.contains("certificate verification failed") == true, "\(String(describing: failure))")
        #expect(fixture.emulator.state.counters.requests == 0)
    }

    @Test func aHostNameIsSentAsSNIAndCheckedAgainstTheCertificate() async throws {
        let fixture = try EmulatorFixture()
        let url = fixture.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        #expect(try await Self.client(fixture, url: url).sendAlert(title: "t", body: "b", to: token).isDelivered)
    }

    @Test func aServerWithoutHTTP2IsRefusedWithTheReason() async throws {
        let fixture = try EmulatorFixture()
        let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Peers/tls_http1_server.py").path
        let server = try BackgroundProcess("/usr/bin/env", ["python3", peer, fixture.files.certificateFile, fixture.files.keyFile])
        defer { server.stop() }
        let port = try #require(server.readLine())
        let failure = try await Self.client(fixture, url: "https://127.0.0.1:\(port)").sendAlert(title: "t", body: "b", to: token).failure
        #expect(failure?.detail?.contains("does not speak HTTP/2") == true, "\(String(describing: failure))")
    }

    @Test func aMissingCAFileIsAConfigurationError() throws {
        let fixture = try EmulatorFixture()
        #expect(throws: APNsConfigurationError.self) { _ = try Self.client(fixture, caFile: "/nonexistent/ca.pem") }
    }

    @Test func cleartextH2WithPriorKnowledge() async throws {
        let fixture = try EmulatorFixture { $0.h2c = true }
        #expect(fixture.url.hasPrefix("http://"))
        #expect(try await Self.client(fixture).sendAlert(title: "t", body: "b", to: token).isDelivered)
    }

    @Test func ipv6Loopback() async throws {
        let fixture = try EmulatorFixture { $0.host = "::1" }
        #expect(try await Self.client(fixture).sendAlert(title: "t", body: "b", to: token).isDelivered)
    }

    @Test func theServersStreamLimitIsHonouredAndSpreadOverConnections() async throws {
        // One stream until a first success, then 5: 40 requests in flight need queueing and a second connection.
        let fixture = try EmulatorFixture { $0.raisedStreamLimit = 5 }
        let client = try Self.client(fixture) { $0.maxConnections = 2 }
        var delivered = 0
        for await result in client.send((0..<200).map { _ in APNsNotification(token: token, payload: .alert(title: "t", body: "b")) }, maxInFlight: 40) {
            if result.outcome.isDelivered { delivered += 1 }
        }
        #expect(delivered == 200)
        #expect(fixture.emulator.state.counters.connectionsOpened == 2)
    }

    @Test func shuttingDownFromACompletionOnTheTransportsThreadReturns() async throws {
        let fixture = try EmulatorFixture()
        let client = try Self.client(fixture)
        let outcomes = Mutex<[Bool]>([])
        let notifications = (0..<3).map { _ in APNsNotification(token: token, payload: .alert(title: "t", body: "b")) }
        await client.send(notifications, maxInFlight: 1) { result in
            outcomes.withLock { $0.append(result.outcome.isDelivered) }
            client.shutdown()  // on the loop's thread: must not wait for the loop to end
        }
        // The second request leaves before the first result is handed over (new requests go
        // first), so a fast answer may still deliver it; the third starts after the shutdown.
        let seen = outcomes.withLock { $0 }
        #expect(seen.count == 3 && seen.first == true && seen.last == false, "\(seen)")
    }

    @Test func whenTheFirstAddressRefusesTheNextIsTried() async throws {
        let fixture = try EmulatorFixture()
        var options = H2Transport.Options(caFile: fixture.caFile)
        let port = fixture.emulator.port
        options.resolver = { _, _ throws(ResolveError) in
            try Sockets.resolve(host: "::1", port: 1, numericOnly: true) + Sockets.resolve(host: "127.0.0.1", port: port, numericOnly: true)
        }
        let transport = try H2Transport(baseURL: "https://localhost:\(port)", options: options)
        var configuration = APNsConfiguration(
            credentials: .token(teamID: fixture.teamID, keyID: fixture.keyID, key: fixture.key),
            environment: .custom(url: "https://localhost:\(port)"), bundleID: EmulatorFixture.topic)
        configuration.retry = .none
        let client = APNsClient(configuration, transport: transport)
        #expect(await client.sendAlert(title: "t", body: "b", to: token).isDelivered)
    }

    @Test func aNameThatDoesNotResolveFailsWithTheResolversAnswer() async throws {
        // The resolver is handed in: tests send nothing past loopback, DNS queries included.
        var options = H2Transport.Options()
        options.resolver = { host, _ throws(ResolveError) in throw .init("cannot resolve \(host): Name or service not known") }
        var configuration = APNsConfiguration(credentials: .token(teamID: "T", keyID: "K", key: try P256Key.generate()), environment: .custom(url: "https://apns.example"), bundleID: "b")
        configuration.retry = .none
        let client = APNsClient(configuration, transport: try H2Transport(baseURL: configuration.environment.baseURL, options: options))
        let failure = await client.sendAlert(title: "t", body: "b", to: token).failure
        #expect(failure?.detail == "cannot resolve apns.example: Name or service not known" && failure?.classification == .retryable)
    }

    @Test func theWrongSchemeIsAConfigurationErrorNotAnOutage() async throws {
        let fixture = try EmulatorFixture()
        let cleartext = fixture.url.replacingOccurrences(of: "https://", with: "http://")
        let client = try Self.client(fixture, url: cleartext) { $0.retry = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(1)) }
        let failure = await client.sendAlert(title: "t", body: "b", to: token).failure
        #expect(failure?.transportError?.kind == .misconfigured && failure?.attempts == 1, "\(String(describing: failure))")
    }

    @Test func aBulkSendToADownServerFailsEveryNotificationQuicklyWithAFlatStack() async throws {
        // Failures that come back at once (the hold-down) used to pump the next send on top of the
        // last: one stack frame per notification, a crash for a large send.
        let fixture = try EmulatorFixture()
        let client = try Self.client(fixture, url: "https://127.0.0.1:1")
        var failed = 0
        for await result in client.send((0..<100_000).lazy.map { _ in APNsNotification(token: token, payload: Payload()) }, maxInFlight: 1000) {
            if result.outcome.failure?.transportError?.kind == .unreachable { failed += 1 }
        }
        #expect(failed == 100_000)
    }

    @Test func aBulkSendHandsEachResultOnceFromItsOwnThreadNeverTheTransports() async throws {
        // The transport's loop thread only moves bytes: a slow result handler must not hold it up.
        let fixture = try EmulatorFixture()
        let client = try Self.client(fixture)
        let loop = try #require((client.transport as? H2Transport)?.loop)
        let seen = Mutex<(indices: [Int], onLoop: Int)>(([], 0))
        let notifications = (0..<300).lazy.map { String(format: "%064x", $0) }.map { APNsNotification(token: $0, payload: .alert(title: "t", body: "b")) }
        await client.send(notifications, maxInFlight: 40) { result in
            #expect(result.outcome.isDelivered)
            seen.withLock {
                $0.indices.append(result.index)
                if loop.inLoop { $0.onLoop += 1 }
            }
        }
        let (indices, onLoop) = seen.withLock { $0 }
        #expect(indices.sorted() == Array(0..<300))
        #expect(onLoop == 0)
        #expect(fixture.emulator.state.counters.accepted == 300)
    }

    @Test func aServerThatTakesTCPButNeverSpeaksIsAConfigurationErrorNotRetried() async throws {
        let fixture = try EmulatorFixture()
        let silent = try Sockets.listen(host: "127.0.0.1", port: 0)  // the kernel completes TCP; nobody answers
        defer { close(silent) }
        let port = try Sockets.localPort(silent)
        let client = try Self.client(fixture, url: "https://127.0.0.1:\(port)") {
            $0.connectTimeout = .milliseconds(200)
            $0.retry = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(1))
        }
        let failure = await client.sendAlert(title: "t", body: "b", to: token).failure
        #expect(failure?.transportError?.kind == .misconfigured && failure?.attempts == 1, "\(String(describing: failure))")
        #expect(failure?.detail?.contains("is it an APNs server?") == true)
    }

    @Test func anAnswerThatNeverComesTimesOut() async throws {
        let fixture = try EmulatorFixture { $0.faults.latencyMilliseconds = 5_000 }
        // Long enough to connect on a loaded machine, far shorter than the 5 s the answer takes.
        let client = try Self.client(fixture) { $0.timeout = .seconds(2) }
        let failure = await client.sendAlert(title: "t", body: "b", to: token).failure
        #expect(failure?.detail?.contains("no answer within") == true && failure?.classification == .retryable, "\(String(describing: failure))")
    }
}

/// A write to a closed socket on an event-loop thread fails with EPIPE instead of killing the process.
@Suite(.timeLimit(.minutes(5))) struct BrokenPipeTests {
    @Test func aWriteToAClosedPeerFailsWithEPIPE() async {
        let result: (Int, Int32) = await withCheckedContinuation { continuation in
            Thread {
                blockBrokenPipeSignal()
                var pair: [Int32] = [0, 0]
                socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair)
                close(pair[1])
                let written = write(pair[0], "x", 1)
                let error = errno
                close(pair[0])
                continuation.resume(returning: (written, error))
            }.start()
        }
        #expect(result.0 == -1 && result.1 == EPIPE)
    }
}

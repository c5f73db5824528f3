import Foundation
import SoarCore
import SoarCrypto
import SoarTesting
import Synchronization
import Testing

@testable import SoarAPNs

let token = "0a" + String(repeating: "1b", count: 31)

@Suite(.timeLimit(.minutes(5))) struct ProviderTokenTests {
    final class Wall: Sendable {
        let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { time.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    @Test func signsES256WithKidAndIssVerifiedByOpenSSL() throws {
        let key = try P256Key.generate()
        let wall = Wall()
        let cache = ProviderTokenCache(teamID: "TEAM", keyID: "KID", key: key, now: { wall.now })
        let decoded = try JWT.decode(try cache.token())
        #expect(decoded.jwt.algorithm == "ES256" && decoded.jwt.keyID == "KID" && decoded.jwt.issuer == "TEAM")
        #expect(decoded.jwt.issuedAt == 1_800_000_000)
        #expect(decoded.verify(with: try P256Key(publicPEM: key.publicPEM())))
    }

    @Test func oneTokenUntilTheRefreshIntervalThenANewOne() throws {
        let wall = Wall()
        let cache = ProviderTokenCache(teamID: "T", keyID: "K", key: try P256Key.generate(), refreshInterval: 50 * 60, now: { wall.now })
        let first = try cache.token()
        wall.advance(49 * 60)
        #expect(try cache.token() == first)
        wall.advance(60)
        let second = try cache.token()
        #expect(second != first)
        cache.invalidate(first)
        #expect(try cache.token() == second, "invalidating a replaced token changes nothing")
        cache.invalidate(second)
        #expect(try cache.token() != second)
    }

    @Test func refreshIsClampedToApplesWindow() throws {
        let key = try P256Key.generate()
        #expect(ProviderTokenCache(teamID: "T", keyID: "K", key: key, refreshInterval: 60).refreshInterval == 20 * 60)
        #expect(ProviderTokenCache(teamID: "T", keyID: "K", key: key, refreshInterval: 7200).refreshInterval == 60 * 60)
    }

    @Test func badKeyTextIsAClearConfigurationError() {
        let error = #expect(throws: APNsConfigurationError.self) { try APNsCredentials.token(teamID: "T", keyID: "K", p8: "nope") }
        #expect(error?.description.contains("cannot use the APNs key as a .p8 EC P-256 private key") == true)
    }
}

@Suite(.timeLimit(.minutes(5))) struct RequestBuildingTests {
    @Test func headersAndPath() throws {
        let id = UUID()
        let notification = APNsNotification(token: token.uppercased(), payload: .alert(title: "T", body: "B"), priority: .immediate, expiration: Date(timeIntervalSince1970: 1_900_000_000), collapseID: "score", apnsID: id)
        let request = try APNsRequest(notification, bundleID: "com.app")
        #expect(request.path == "/3/device/\(token)")
        #expect(request.apnsID == id.uuidString.lowercased())
        let headers = Dictionary(request.headers, uniquingKeysWith: { a, _ in a })
        #expect(headers == ["apns-id": id.uuidString.lowercased(), "apns-topic": "com.app", "apns-push-type": "alert", "apns-priority": "10", "apns-expiration": "1900000000", "apns-collapse-id": "score"])
        #expect(try JSONDecoder().decode(JSONValue.self, from: request.body) == ["aps": ["alert": ["title": "T", "body": "B"], "sound": "default"]])
    }

    @Test func aTopicThatCannotBeAHeaderIsRefusedBeforeSending() {
        for topic in [String(repeating: "x", count: 256), "com.app\r\nx-injected: 1", "com app"] {
            let notification = APNsNotification(token: token, payload: .alert(title: "T", body: "B"), topic: topic)
            #expect(throws: APNsRequestError.self) { try APNsRequest(notification, bundleID: nil) }
        }
    }

    @Test func everyPushTypeGetsItsTopicAndBackgroundGetsPriorityFive() throws {
        for type in PushType.all {
            let request = try APNsRequest(APNsNotification(token: token, payload: Payload(), pushType: type), bundleID: "com.app")
            let headers = Dictionary(request.headers, uniquingKeysWith: { a, _ in a })
            #expect(headers["apns-topic"] == type.topic(forBundleID: "com.app"))
            #expect(headers["apns-push-type"] == type.rawValue)
            #expect(headers["apns-priority"] == (type == .background ? "5" : nil))
        }
        let explicit = try APNsRequest(APNsNotification(token: token, payload: Payload(), topic: "com.other.voip"), bundleID: "com.app")
        #expect(explicit.headers.contains { $0 == ("apns-topic", "com.other.voip") })
    }

    @Test func generatedIDsAreLowercaseUUIDs() throws {
        let request = try APNsRequest(APNsNotification(token: token, payload: Payload()), bundleID: "b")
        #expect(request.apnsID == request.apnsID.lowercased() && UUID(uuidString: request.apnsID) != nil)
    }

    @Test(arguments: [
        (APNsNotification(token: "xyz", payload: Payload()), "bad device token"),
        (APNsNotification(token: token, payload: Payload(), pushType: .background, priority: .immediate), "background notifications cannot use priority 10"),
        (APNsNotification(token: token, payload: Payload(), collapseID: String(repeating: "c", count: 65)), "apns-collapse-id is 65 bytes; the limit is 64"),
        (APNsNotification(token: token, payload: .alert(title: "", body: String(repeating: "x", count: 4100))), "over the 4096-byte limit"),
        (APNsNotification(token: token, payload: Payload(), pushType: PushType(rawValue: "fax")), "unknown push type fax"),
    ])
    func rulesAreCheckedBeforeSending(notification: APNsNotification, message: String) {
        let error = #expect(throws: APNsRequestError.self) { try APNsRequest(notification, bundleID: "com.app") }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
    }

    @Test func voipAllows5120Bytes() throws {
        let body = String(repeating: "x", count: 5000)
        #expect(throws: Never.self) { try APNsRequest(APNsNotification(token: token, payload: .alert(title: "", body: body), pushType: .voip), bundleID: "b") }
    }

    @Test func noTopicIsAnError() {
        #expect(throws: APNsRequestError.self) { try APNsRequest(APNsNotification(token: token, payload: Payload()), bundleID: nil) }
    }
}

@Suite(.timeLimit(.minutes(5))) struct OutcomeMappingTests {
    @Test func delivered() {
        #expect(ResponseMapping.outcome(status: 200, headers: [("apns-id", "a"), ("apns-unique-id", "u")], body: Data(), apnsID: "x", attempts: 1) == .delivered(apnsID: "a", uniqueID: "u"))
    }

    @Test func everyReasonOfApplesTableIsKeptAndClassified() {
        for reason in APNsReason.all {
            let body = Data(#"{"reason":"\#(reason.rawValue)"}"#.utf8)
            let failure = ResponseMapping.outcome(status: reason.status, headers: [], body: body, apnsID: "x", attempts: 1).failure
            #expect(failure?.reason == reason && failure?.status == reason.status)
            // Written out by hand from Apple's table, not derived from the implementation's sets.
            let expected: APNsFailure.Class? = Self.expectedClass[reason.rawValue]
            #expect(expected != nil, "a reason without an expectation: \(reason)")
            #expect(failure?.classification == expected, "\(reason)")
        }
    }

    /// What a sender must do for each reason: drop the token, try later, or fix something.
    static let expectedClass: [String: APNsFailure.Class] = [
        "BadDeviceToken": .invalidToken, "Unregistered": .invalidToken, "ExpiredToken": .invalidToken, "DeviceTokenNotForTopic": .invalidToken,
        "TooManyProviderTokenUpdates": .retryable, "TooManyRequests": .retryable, "InternalServerError": .retryable,
        "ServiceUnavailable": .retryable, "Shutdown": .retryable,
        "BadCollapseId": .permanent, "BadExpirationDate": .permanent, "BadMessageId": .permanent, "BadPriority": .permanent,
        "BadTopic": .permanent, "DuplicateHeaders": .permanent, "IdleTimeout": .permanent, "InvalidPushType": .permanent,
        "MissingDeviceToken": .permanent, "MissingTopic": .permanent, "PayloadEmpty": .permanent, "TopicDisallowed": .permanent,
        "BadRequest": .permanent, "BadCertificate": .permanent, "BadCertificateEnvironment": .permanent,
        "ExpiredProviderToken": .permanent, "Forbidden": .permanent, "InvalidProviderToken": .permanent,
        "MissingProviderToken": .permanent, "UnrelatedKeyIdInToken": .permanent, "BadEnvironmentKeyIdInToken": .permanent,
        "BadPath": .permanent, "MethodNotAllowed": .permanent, "PayloadTooLarge": .permanent,
    ]

    @Test func goneCarriesTheTimestampAndUnknownReasonsStayText() {
        let gone = ResponseMapping.outcome(status: 410, headers: [], body: Data(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8), apnsID: "x", attempts: 1).failure
        #expect(gone?.timestamp == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(gone?.isInvalidToken == true)
        let odd = ResponseMapping.outcome(status: 400, headers: [], body: Data(#"{"reason":"SomethingNew"}"#.utf8), apnsID: "x", attempts: 1).failure
        #expect(odd?.reason.rawValue == "SomethingNew" && odd?.classification == .permanent)
        let proxy = ResponseMapping.outcome(status: 502, headers: [], body: Data("<html>bad gateway</html>".utf8), apnsID: "x", attempts: 1).failure
        #expect(proxy?.reason.rawValue == "HTTP502" && proxy?.detail == "<html>bad gateway</html>")
        let lost = APNsFailure.transport(TransportError(.answerLost, "reset"), apnsID: "x", attempts: 1)
        #expect(lost.classification == .retryable && lost.mayHaveBeenDelivered && lost.reason == APNsFailure.deliveryUnknown)
        let refused = APNsFailure.transport(TransportError(.unreachable, "refused"), apnsID: "x", attempts: 2)
        #expect(refused.classification == .retryable && !refused.mayHaveBeenDelivered && refused.reason == APNsFailure.connectionFailed)
        #expect(APNsFailure.transport(TransportError(.unreachable, "refused"), apnsID: "x", attempts: 2, lostBefore: true).mayHaveBeenDelivered)
        #expect(APNsFailure.transport(TransportError(.misconfigured, "bad certificate"), apnsID: "x", attempts: 1).classification == .permanent)
    }
}

/// A transport that answers from a script, for retry tests without a network.
final class ScriptedTransport: Transport, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [TransportResult]
    private(set) var requests: [TransportRequest] = []
    /// How many requests each submit handed over.
    private(set) var batches: [Int] = []

    init(_ answers: [TransportResult]) { self.answers = answers }

    func submit(_ batch: [TransportSubmission]) {
        lock.lock()
        batches.append(batch.count)
        let answered = batch.map { submission in
            requests.append(submission.request)
            return (submission, answers.isEmpty ? TransportResult.response(status: 200, headers: [], body: Data()) : answers.removeFirst())
        }
        lock.unlock()
        for (submission, answer) in answered { submission.completion(answer) }
    }

    func shutdown() {}
}

@Suite(.timeLimit(.minutes(5))) struct RetryTests {
    static func client(_ transport: ScriptedTransport, clock: ImmediateClock, retry: RetryPolicy = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(1))) throws -> APNsClient {
        var configuration = APNsConfiguration(credentials: .token(teamID: "T", keyID: "K", key: try P256Key.generate()), environment: .custom(url: "https://apns.test"), bundleID: "com.app")
        configuration.retry = retry
        configuration.clock = clock
        configuration.random = { 1 }
        return APNsClient(configuration, transport: transport)
    }

    static let unavailable = TransportResult.response(status: 503, headers: [], body: Data(#"{"reason":"ServiceUnavailable"}"#.utf8))

    @Test func backOffGrowsExponentiallyWithJitterAndACap() {
        let policy = RetryPolicy(maxRetries: 5, baseDelay: .milliseconds(100), maxDelay: .milliseconds(500))
        #expect(policy.delay(beforeRetry: 1, random: 1) == .milliseconds(100))
        #expect(policy.delay(beforeRetry: 2, random: 1) == .milliseconds(200))
        #expect(policy.delay(beforeRetry: 3, random: 0.5) == .milliseconds(200))
        #expect(policy.delay(beforeRetry: 4, random: 1) == .milliseconds(500))
        #expect(policy.delay(beforeRetry: 40, random: 1) == .milliseconds(500))
        #expect(policy.delay(beforeRetry: 2, random: 0) == .zero)
    }

    @Test func retries503UntilItSucceedsWaitingOnTheClock() async throws {
        let clock = ImmediateClock()
        let transport = ScriptedTransport([Self.unavailable, .failure(TransportError(.answerLost, "connection reset")), .response(status: 200, headers: [("apns-id", "x")], body: Data())])
        let outcome = try await Self.client(transport, clock: clock).sendAlert(title: "t", body: "b", to: token)
        #expect(outcome == .delivered(apnsID: "x", uniqueID: nil))
        #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200)])
        #expect(Set(transport.requests.map { $0.headers.first { $0.0 == "apns-id" }!.1 }).count == 1, "the same apns-id on every attempt")
    }

    @Test func givesUpAfterTheBoundAndReportsAttempts() async throws {
        let clock = ImmediateClock()
        let transport = ScriptedTransport(Array(repeating: Self.unavailable, count: 10))
        let failure = try await Self.client(transport, clock: clock).sendAlert(title: "t", body: "b", to: token).failure
        #expect(failure?.reason == .serviceUnavailable && failure?.attempts == 4)
        #expect(transport.requests.count == 4 && clock.sleeps.count == 3)
    }

    @Test func permanentAndInvalidTokenFailuresAreNotRetried() async throws {
        let transport = ScriptedTransport([.response(status: 410, headers: [], body: Data(#"{"reason":"Unregistered","timestamp":1}"#.utf8))])
        let failure = try await Self.client(transport, clock: ImmediateClock()).sendAlert(title: "t", body: "b", to: token).failure
        #expect(failure?.classification == .invalidToken && transport.requests.count == 1)
    }

    @Test func expiredProviderTokenForcesANewTokenOnce() async throws {
        let expired = TransportResult.response(status: 403, headers: [], body: Data(#"{"reason":"ExpiredProviderToken"}"#.utf8))
        let transport = ScriptedTransport([expired, .response(status: 200, headers: [], body: Data())])
        let outcome = try await Self.client(transport, clock: ImmediateClock()).sendAlert(title: "t", body: "b", to: token)
        #expect(outcome.isDelivered)
        let auths = transport.requests.compactMap(\.authorization)
        #expect(auths.count == 2 && auths[0] != auths[1])
    }

    @Test func invalidNotificationsNeverReachTheTransport() async throws {
        let transport = ScriptedTransport([])
        let failure = try await Self.client(transport, clock: ImmediateClock()).send(APNsNotification(token: "nothex", payload: Payload())).failure
        #expect(failure?.detail?.contains("bad device token") == true && failure?.attempts == 0)
        #expect(transport.requests.isEmpty)
    }

    @Test func bulkStreamsEveryOutcome() async throws {
        let transport = ScriptedTransport([Self.unavailable])
        let client = try Self.client(transport, clock: ImmediateClock())
        let notifications = (0..<500).lazy.map { APNsNotification(token: $0 == 7 ? "bad" : token, payload: .alert(title: "\($0)", body: "b")) }
        var seen = Set<Int>()
        var failed = 0
        for await result in client.send(notifications, maxInFlight: 50) {
            seen.insert(result.index)
            if !result.outcome.isDelivered { failed += 1 }
        }
        #expect(seen == Set(0..<500))
        #expect(failed == 1, "index 7 has a bad token; the 503 was retried")
    }

    @Test func aBulkSendHandsItsRequestsToTheTransportInBatchesNotOneByOne() async throws {
        // So they leave in a few large writes; a retry still goes alone.
        let transport = ScriptedTransport([Self.unavailable])
        let client = try Self.client(transport, clock: ImmediateClock())
        let notifications = (0..<300).map { APNsNotification(token: token, payload: .alert(title: "\($0)", body: "b")) }
        let delivered = Mutex(0)
        await client.send(notifications, maxInFlight: 100) { result in
            if result.outcome.isDelivered { delivered.withLock { $0 += 1 } }
        }
        #expect(delivered.withLock { $0 } == 300)
        #expect(transport.requests.count == 301)
        #expect(transport.batches.first == 100, "the first window goes in one hand-over")
        #expect(transport.batches.count < 300 / 2, "\(transport.batches)")
    }
}

import Foundation
import SoarCore
import SoarCrypto
import SoarTesting
import Testing

@testable import SoarEmulator

/// The emulator over real HTTP/2 + TLS, driven by curl.
@Suite(.timeLimit(.minutes(5))) struct EmulatorWireTests {
    @Test func acceptsAndRecordsADelivery() throws {
        let fixture = try EmulatorFixture()
        let id = "6f1c5e1e-98b4-4c43-9a1a-2b5f1f0a8d11"
        let answer = try Curl(fixture: fixture).send(headers: ["apns-id": id, "apns-push-type": "alert", "apns-priority": "10"])
        #expect(answer.status == 200)
        #expect(answer.headers["apns-id"] == id)
        #expect(answer.headers["apns-unique-id"]?.count == 36)
        let deliveries = fixture.emulator.state.deliveries
        #expect(deliveries.count == 1)
        #expect(deliveries.first?.token == Curl.token)
        #expect(deliveries.first?.headers.contains { $0 == ("apns-topic", EmulatorFixture.topic) } == true)
        let listed = try fixture.control("GET", "/deliveries")
        let items = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]]
        #expect(items?.first?["token"] as? String == Curl.token)
        #expect((items?.first?["payload"] as? [String: Any])?["aps"] != nil)
    }

    /// Every reason of the validation table, as the wire carries it.
    @Test func everyErrorReasonOverTheWire() throws {
        let fixture = try EmulatorFixture { $0.allowedTopics = [EmulatorFixture.topic] }
        let curl = Curl(fixture: fixture)
        let big = #"{"aps":{"alert":""# + String(repeating: "x", count: 4100) + #""}}"#
        let cases: [(String, CurlAnswer, Int)] = [
            ("MethodNotAllowed", try curl.send(method: "PUT"), 405),
            ("BadPath", try curl.send(path: "/3/devices/abcd"), 404),
            ("MissingDeviceToken", try curl.send(path: "/3/device/"), 400),
            ("MissingProviderToken", try curl.send(auth: false), 403),
            ("InvalidProviderToken", try curl.send(headers: ["authorization": "bearer " + (try fixture.providerToken(signer: P256Key.generate()))]), 403),
            ("InvalidProviderToken", try curl.send(headers: ["authorization": "bearer " + (try fixture.providerToken(keyID: "NOPE"))]), 403),
            ("InvalidProviderToken", try curl.send(headers: ["authorization": "bearer " + (try fixture.providerToken(teamID: "NOPE"))]), 403),
            ("ExpiredProviderToken", try curl.send(headers: ["authorization": "bearer " + (try fixture.providerToken(issuedAt: Date() - 7200))]), 403),
            ("MissingTopic", try curl.send(topic: nil), 400),
            ("TopicDisallowed", try curl.send(topic: "com.someone.else"), 400),
            ("InvalidPushType", try curl.send(headers: ["apns-push-type": "voip"]), 400),
            ("InvalidPushType", try curl.send(headers: ["apns-push-type": "hologram"]), 400),
            ("BadPriority", try curl.send(headers: ["apns-priority": "3"]), 400),
            ("BadPriority", try curl.send(headers: ["apns-push-type": "background", "apns-priority": "10"]), 400),
            ("BadExpirationDate", try curl.send(headers: ["apns-expiration": "tomorrow"]), 400),
            ("BadMessageId", try curl.send(headers: ["apns-id": "not-a-uuid"]), 400),
            ("BadCollapseId", try curl.send(headers: ["apns-collapse-id": String(repeating: "c", count: 65)]), 400),
            ("DuplicateHeaders", try curl.send(extraHeaders: ["apns-priority: 10", "apns-priority: 5"]), 400),
            ("PayloadEmpty", try curl.send(body: nil), 400),
            ("PayloadTooLarge", try curl.send(body: big), 413),
            ("BadRequest", try curl.send(body: "[1,2]"), 400),
            ("BadDeviceToken", try curl.send(path: "/3/device/not-hex"), 400),
        ]
        for (reason, answer, status) in cases {
            #expect(answer.reason == reason, "expected \(reason), got \(answer.status) \(answer.body)")
            #expect(answer.status == status, "\(reason)")
            #expect(answer.headers["apns-id"] != nil, "\(reason) answers carry apns-id")
        }
    }

    @Test func tooManyProviderTokenUpdatesOnOneConnection() throws {
        let fixture = try EmulatorFixture()
        let first = try fixture.providerToken(issuedAt: Date() - 10)
        let second = try fixture.providerToken(issuedAt: Date())
        var arguments: [String] = []
        for token in [first, second] {
            if token == second { arguments.append("--next") }
            arguments += ["-s", "-i", "--http2", "--cacert", fixture.caFile, "-X", "POST", "-H", "authorization: bearer \(token)", "-H", "apns-topic: \(EmulatorFixture.topic)", "-d", #"{"aps":{}}"#, fixture.url + "/3/device/\(Curl.token)"]
        }
        let result = try ProcessRunner.run("curl", arguments)
        #expect(result.stdout.contains("HTTP/2 200"))
        #expect(try Curl.parse(result).reason == "TooManyProviderTokenUpdates")
        #expect(try Curl.parse(result).status == 429, "\(result.stdout)")
    }

    @Test func markedTokensAnswer410WithATimestampAndBadDeviceToken() throws {
        let fixture = try EmulatorFixture { $0.bad = ["cafe"] }
        let curl = Curl(fixture: fixture)
        let marked = try fixture.control("POST", "/tokens/\(Curl.token)/unregister", body: #"{"timestamp":1700000000123}"#)
        #expect(marked.stdout.contains("\"unregistered\":1700000000123"))
        let gone = try curl.send()
        #expect(gone.status == 410 && gone.reason == "Unregistered")
        #expect(gone.json?["timestamp"] as? Int == 1_700_000_000_123)
        #expect(try curl.send(path: "/3/device/cafe").reason == "BadDeviceToken")
        _ = try fixture.control("DELETE", "/tokens/\(Curl.token)")
        #expect(try curl.send().status == 200)
    }

    @Test func controlAPIAnswersUnderEmulatorPathToo() throws {
        let fixture = try EmulatorFixture()
        _ = try Curl(fixture: fixture).send()
        let stats = try Curl(fixture: fixture).send(method: "GET", path: "/_emulator/stats", body: nil, auth: false)
        #expect(stats.status == 200)
        #expect(stats.json?["accepted"] as? Int == 1)
        let unknown = try fixture.control("GET", "/nothing")
        #expect(unknown.stdout.contains("no control endpoint GET /nothing"))
        let bad = try fixture.control("POST", "/faults", body: #"{"status":404}"#)
        #expect(bad.stdout.contains("status must be 429, 500 or 503"))
        _ = try fixture.control("DELETE", "/deliveries")
        #expect(fixture.emulator.state.deliveries.isEmpty)
    }

    @Test func certificateAuthentication() throws {
        let clientCA = try CertificateAuthority.generate(commonName: "client CA")
        let fixtureDirectory = TemporaryDirectory("soar-client-ca")
        let caFile = try fixtureDirectory.write("client-ca.pem", clientCA.certificatePEM)
        let fixture = try EmulatorFixture { $0.clientCAFile = caFile }
        let client = try clientCA.issueClient(commonName: EmulatorFixture.topic)
        let certFile = try fixtureDirectory.write("client.pem", client.certificatePEM)
        let keyFile = try fixtureDirectory.write("client-key.pem", try client.key.privatePEM())
        let answer = try Curl(fixture: fixture).send(auth: false, topic: nil, curlOptions: ["--cert", certFile, "--key", keyFile])
        #expect(answer.status == 200, "\(answer.body)")
        let stranger = try CertificateAuthority.generate(commonName: "other").issueClient(commonName: "x")
        let strangerCert = try fixtureDirectory.write("stranger.pem", stranger.certificatePEM)
        let strangerKey = try fixtureDirectory.write("stranger-key.pem", try stranger.key.privatePEM())
        #expect(throws: CurlFailure.self) { try Curl(fixture: fixture).send(auth: false, curlOptions: ["--cert", strangerCert, "--key", strangerKey]) }
    }

    /// nghttp prints the frames: SETTINGS_MAX_CONCURRENT_STREAMS starts at 1 and is raised after
    /// the first accepted request.
    @Test func streamLimitStartsAtOneAndIsRaised() throws {
        let fixture = try EmulatorFixture { $0.raisedStreamLimit = 777 }
        let dir = TemporaryDirectory()
        let body = try dir.write("body.json", #"{"aps":{"alert":"x"}}"#)
        let result = try ProcessRunner.run("nghttp", ["-nv", "-d", body, "-H", "authorization: bearer \(try fixture.providerToken())", "-H", "apns-topic: \(EmulatorFixture.topic)", fixture.url + "/3/device/\(Curl.token)"])
        let settings = result.stdout.components(separatedBy: "\n").filter { $0.contains("SETTINGS_MAX_CONCURRENT_STREAMS") }
        #expect(settings.first?.contains("):1") == true, "\(settings)")
        #expect(settings.last?.contains("):777") == true, "\(settings)")
        #expect(result.stdout.contains(":status: 200"))
    }

    @Test func listensOnIPv6Loopback() throws {
        let fixture = try EmulatorFixture { $0.host = "::1" }
        #expect(fixture.url.hasPrefix("https://[::1]:"))
        #expect(try Curl(fixture: fixture).send().status == 200)
        #expect(try fixture.control("GET", "/stats").stdout.contains("\"accepted\":1"))
    }
}

import Foundation
import SoarCore
import SoarCrypto
import SoarHTTP2
import Synchronization
import Testing

@testable import SoarEmulator

/// A wall clock tests move by hand.
final class ManualWallClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

@Suite(.timeLimit(.minutes(5))) struct RequestValidatorTests {
    let clock = ManualWallClock()
    let key: P256Key
    let state: EmulatorState
    let validator: RequestValidator
    let token = "0f" + String(repeating: "ab", count: 31)

    init() throws {
        key = try P256Key.generate()
        state = EmulatorState(keys: [RegisteredKey(teamID: "TEAM", keyID: "KID", publicKey: try P256Key(publicPEM: key.publicPEM()))])
        let clock = clock
        validator = RequestValidator(state: state, allowedTopics: ["com.app"], now: { clock.now })
    }

    func jwt(kid: String = "KID", iss: String = "TEAM", iat: Date? = nil, signer: P256Key? = nil) throws -> String {
        let issued = Int((iat ?? clock.now).timeIntervalSince1970)
        return try JWT(header: ["kid": .string(kid)], claims: ["iss": .string(iss), "iat": .int(issued)]).signed(with: signer ?? key)
    }

    func request(method: String = "POST", path: String? = nil, headers: [(String, String)] = [], body: String = #"{"aps":{"alert":"hi"}}"#, auth: Bool = true) throws -> H2Request {
        var all = headers
        if auth, !headers.contains(where: { $0.0 == "authorization" }) { all.append(("authorization", "bearer " + (try jwt()))) }
        if !headers.contains(where: { $0.0 == "apns-topic" }) { all.append(("apns-topic", "com.app")) }
        return H2Request(method: method, path: path ?? "/3/device/\(token)", headers: all, body: Data(body.utf8))
    }

    func reason(_ request: H2Request, auth: inout ConnectionAuth) -> String {
        switch validator.validate(request, auth: &auth) {
        case .accepted: "accepted"
        case .rejected(let reason, _, _, _): reason
        }
    }

    func reason(_ request: H2Request) -> String {
        var auth = ConnectionAuth()
        return reason(request, auth: &auth)
    }

    @Test func acceptsAWellFormedRequestAndEchoesItsID() throws {
        var auth = ConnectionAuth()
        let id = "6F1C5E1E-98B4-4C43-9A1A-2B5F1F0A8D11"
        let verdict = validator.validate(try request(headers: [("apns-id", id)]), auth: &auth)
        #expect(verdict == .accepted(apnsID: id, payload: ["aps": ["alert": "hi"]]))
    }

    @Test func methodAndPath() throws {
        #expect(reason(try request(method: "GET")) == "MethodNotAllowed")
        #expect(reason(try request(path: "/4/device/abcd")) == "BadPath")
        #expect(reason(try request(path: "/3/device/")) == "MissingDeviceToken")
        #expect(reason(try request(path: "/3/device")) == "MissingDeviceToken")
        #expect(reason(try request(path: "/3/device/ab/cd")) == "BadPath")
    }

    @Test func providerTokens() throws {
        #expect(reason(try request(auth: false)) == "MissingProviderToken")
        #expect(reason(try request(headers: [("authorization", "basic xyz")])) == "MissingProviderToken")
        #expect(reason(try request(headers: [("authorization", "bearer not.a.jwt")])) == "InvalidProviderToken")
        #expect(reason(try request(headers: [("authorization", "bearer " + (try jwt(signer: P256Key.generate())))])) == "InvalidProviderToken")
        #expect(reason(try request(headers: [("authorization", "bearer " + (try jwt(kid: "OTHER")))])) == "InvalidProviderToken")
        #expect(reason(try request(headers: [("authorization", "bearer " + (try jwt(iss: "OTHERTEAM")))])) == "InvalidProviderToken")
        let hs256 = try JWT(header: ["kid": "KID"], claims: ["iss": "TEAM", "iat": .int(Int(clock.now.timeIntervalSince1970))]).signed(secret: Data("k".utf8))
        #expect(reason(try request(headers: [("authorization", "bearer " + hs256)])) == "InvalidProviderToken")
        #expect(reason(try request(headers: [("authorization", "bearer " + (try jwt(iat: clock.now - 3601)))])) == "ExpiredProviderToken")
    }

    @Test func aTokenExpiresOnItsConnectionAfterAnHour() throws {
        var auth = ConnectionAuth()
        let first = try request()
        #expect(reason(first, auth: &auth) == "accepted")
        clock.advance(3000)
        #expect(reason(first, auth: &auth) == "accepted")
        clock.advance(700)
        #expect(reason(first, auth: &auth) == "ExpiredProviderToken")
    }

    @Test func tokenUpdatesMoreOftenThanEvery20MinutesAreRefused() throws {
        var auth = ConnectionAuth()
        #expect(reason(try request(), auth: &auth) == "accepted")
        clock.advance(60)
        #expect(reason(try request(), auth: &auth) == "TooManyProviderTokenUpdates")
        clock.advance(20 * 60)
        #expect(reason(try request(), auth: &auth) == "accepted")
    }

    @Test func certificateAuthNeedsNoToken() throws {
        var auth = ConnectionAuth(clientCertificate: "com.app")
        #expect(reason(try request(auth: false), auth: &auth) == "accepted")
    }

    @Test func headers() throws {
        #expect(reason(try request(headers: [("apns-topic", "")])) == "MissingTopic")
        #expect(reason(H2Request(method: "POST", path: "/3/device/\(token)", headers: [("authorization", "bearer " + (try jwt()))], body: Data(#"{"aps":{}}"#.utf8))) == "MissingTopic")
        #expect(reason(try request(headers: [("apns-topic", "com.other")])) == "TopicDisallowed")
        #expect(reason(try request(headers: [("apns-push-type", "fax")])) == "InvalidPushType")
        #expect(reason(try request(headers: [("apns-push-type", "voip")])) == "InvalidPushType")
        #expect(reason(try request(headers: [("apns-push-type", "voip"), ("apns-topic", "com.app.voip")])) == "accepted")
        #expect(reason(try request(headers: [("apns-push-type", "alert"), ("apns-topic", "com.app.voip")])) == "InvalidPushType")
        #expect(reason(try request(headers: [("apns-priority", "7")])) == "BadPriority")
        #expect(reason(try request(headers: [("apns-push-type", "background"), ("apns-priority", "10")])) == "BadPriority")
        #expect(reason(try request(headers: [("apns-push-type", "background"), ("apns-priority", "5")])) == "accepted")
        #expect(reason(try request(headers: [("apns-expiration", "soon")])) == "BadExpirationDate")
        #expect(reason(try request(headers: [("apns-expiration", "-1")])) == "BadExpirationDate")
        #expect(reason(try request(headers: [("apns-expiration", "0")])) == "accepted")
        #expect(reason(try request(headers: [("apns-id", "1234")])) == "BadMessageId")
        #expect(reason(try request(headers: [("apns-collapse-id", String(repeating: "c", count: 65))])) == "BadCollapseId")
        #expect(reason(try request(headers: [("apns-collapse-id", String(repeating: "c", count: 64))])) == "accepted")
        #expect(reason(try request(headers: [("apns-priority", "10"), ("apns-priority", "5")])) == "DuplicateHeaders")
    }

    @Test func everyPushTypeWithItsTopic() throws {
        for type in PushType.all {
            let headers = [("apns-push-type", type.rawValue), ("apns-topic", type.topic(forBundleID: "com.app")), ("apns-priority", type == .background ? "5" : "10")]
            #expect(reason(try request(headers: headers)) == "accepted", "\(type)")
        }
    }

    @Test func payloads() throws {
        #expect(reason(try request(body: "")) == "PayloadEmpty")
        #expect(reason(try request(body: #"{"aps":{"alert":""# + String(repeating: "x", count: 4100) + #""}}"#)) == "PayloadTooLarge")
        let voip = #"{"aps":{"alert":""# + String(repeating: "x", count: 4500) + #""}}"#
        #expect(reason(try request(headers: [("apns-push-type", "voip"), ("apns-topic", "com.app.voip")], body: voip)) == "accepted")
        #expect(reason(try request(body: "not json")) == "BadRequest")
        #expect(reason(try request(body: #"{"alert":"no aps"}"#)) == "BadRequest")
    }

    @Test func markedTokens() throws {
        #expect(reason(try request(path: "/3/device/xyz1")) == "BadDeviceToken")
        #expect(reason(try request(path: "/3/device/abc")) == "BadDeviceToken")
        state.setMark(.bad, for: token)
        #expect(reason(try request()) == "BadDeviceToken")
        state.setMark(.unregistered(since: 1_700_000_000_123), for: token.uppercased())
        var auth = ConnectionAuth()
        let verdict = validator.validate(try request(), auth: &auth)
        guard case .rejected("Unregistered", 410, _, let timestamp) = verdict else {
            Issue.record("expected 410 Unregistered, got \(verdict)")
            return
        }
        #expect(timestamp == 1_700_000_000_123)
    }

    @Test func aDeliveryLineIsOneCompactJSONObjectWhateverTheBodyLooksLike() throws {
        var auth = ConnectionAuth()
        let pretty = "\u{FEFF}{\n  \"aps\" : { \"alert\" : \"hi\\nthere\" },\n  \"big\" : 12345678901234567890, \"f\": 1.0\n}\n"
        guard case .accepted(let id, let payload) = validator.validate(try request(body: pretty), auth: &auth) else {
            Issue.record("not accepted")
            return
        }
        let line = Delivery(time: Date(timeIntervalSince1970: 0), token: token, apnsID: id, headers: [("apns-topic", "com.app")], payload: payload).jsonLine
        #expect(!line.contains("\n"))
        let object = try #require(try JSONValue.read(line).objectValue)
        #expect(object["payload"]?.jsonText == #"{"aps":{"alert":"hi\nthere"},"big":12345678901234567890,"f":1.0}"#)
        #expect(object["token"] == .string(token))
    }
}

@Suite(.timeLimit(.minutes(5))) struct FaultsTests {
    @Test func appliesAndRejectsControlBodies() throws {
        var faults = Faults()
        try faults.apply(["status": 503, "every": 10, "latency_ms": 5, "goaway_after": 100, "drop_after": 7, "accept": false])
        #expect(faults.status == 503 && faults.every == 10 && faults.latencyMilliseconds == 5)
        #expect(faults.goawayAfter == 100 && faults.dropAfter == 7 && !faults.accepting)
        try faults.apply(["status": nil])
        #expect(faults.status == nil)
        #expect(throws: FaultError.self) { try faults.apply(["status": 404]) }
        #expect(throws: FaultError.self) { try faults.apply(["every": 0]) }
        #expect(throws: FaultError.self) { try faults.apply(["explode": true]) }
        #expect(faults.every == 10, "a rejected body changes nothing")
    }

    @Test func everyBelowOneThroughTheLibraryMeansEveryRequest() {
        var faults = Faults()
        faults.every = 0
        #expect(faults.every == 1)
        faults.every = -5
        #expect(faults.every == 1)
    }

    @Test func keepsOnlyTheNewestDeliveries() {
        let state = EmulatorState(keep: 3)
        for index in 0..<5 {
            state.record(Delivery(time: Date(), token: "t\(index)", apnsID: "\(index)", headers: [], payload: [:]))
        }
        #expect(state.deliveries.map(\.token) == ["t2", "t3", "t4"])
        #expect(state.counters.accepted == 5)
    }
}

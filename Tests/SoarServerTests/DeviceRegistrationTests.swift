import Foundation
import SoarCore
import SoarTesting
import Testing

/// Device tokens: the data API's upsert and seed 001's endpoint share one row and one set of rules.
@Suite(.timeLimit(.minutes(5))) struct DeviceRegistrationTests {
    let fixture: ServerFixture
    init() async throws { fixture = try await ServerFixture.start() }

    static let token = String(repeating: "ab", count: 32)

    @Test func creatorEndpointUpsertsOnceAndDeletes() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let body = #"{"token":"\#(Self.token)","platform":"ios","environment":"production","bundle_id":"com.example.app"}"#
        for _ in 0..<2 {
            // Seed 001's client sends only its bearer token, no apikey.
            let answer = try await fixture.call("POST", "/api/creator/device_tokens", bearer: alice.token, headers: ["apikey": ""], body: body)
            #expect(answer.status == 201, "\(answer.text)")
            #expect(answer.object["environment"] == "production" && answer.object["user_id"] == .string(alice.id))
        }
        let rows = try await fixture.call("GET", "/rest/v1/device_tokens?select=token,environment,bundle_id", bearer: alice.token)
        #expect(rows.rows.count == 1 && rows.rows.first?["bundle_id"] == "com.example.app")
        let removed = try await fixture.call("DELETE", "/api/creator/device_tokens", bearer: alice.token, body: #"{"token":"\#(Self.token)"}"#)
        #expect(removed.status == 204)
        let after = try await fixture.call("GET", "/rest/v1/device_tokens?select=token", bearer: alice.token)
        #expect(after.rows.isEmpty)
    }

    @Test func aTokenIsStoredInLowercaseSoOneDeviceIsOneRowWhateverItsCase() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let upsert = ["prefer": "resolution=merge-duplicates,return=representation"]
        for token in [Self.token.uppercased(), Self.token] {
            let answer = try await fixture.call(
                "POST", "/rest/v1/device_tokens?on_conflict=user_id,token", bearer: alice.token, headers: upsert, body: #"{"token":"\#(token)"}"#)
            #expect(answer.status == 201 && answer.rows.first?["token"] == .string(Self.token), "\(answer.text)")
        }
        let rows = try await fixture.call("GET", "/rest/v1/device_tokens?select=token", bearer: alice.token)
        #expect(rows.rows.count == 1)
        let removed = try await fixture.call("DELETE", "/api/creator/device_tokens", bearer: alice.token, body: #"{"token":"\#(Self.token.uppercased())"}"#)
        #expect(removed.status == 204)
        #expect(try await fixture.call("GET", "/rest/v1/device_tokens?select=token", bearer: alice.token).rows.isEmpty)
        // The data API's filters on a token match any case too (the seed's wipe on sign-out).
        _ = try await fixture.call("POST", "/rest/v1/device_tokens", bearer: alice.token, body: #"{"token":"\#(Self.token)"}"#)
        let wiped = try await fixture.call(
            "DELETE", "/rest/v1/device_tokens?token=eq.\(Self.token.uppercased())", bearer: alice.token, headers: ["prefer": "return=representation"])
        #expect(wiped.status == 200 && wiped.rows.count == 1, "\(wiped.text)")
    }

    @Test func aBundleIDIsCheckedAsAppleDefinesIt() async throws {
        let alice = try await fixture.signUp("a@example.com")
        for bundle in [String(repeating: "x", count: 156), "com.example app", "com.example.app\\r\\nx: 1"] {
            let answer = try await fixture.call("POST", "/rest/v1/device_tokens", bearer: alice.token, body: #"{"token":"\#(Self.token)","bundle_id":"\#(bundle)"}"#)
            #expect(answer.status == 400 && answer.object["code"] == "23514", "\(bundle): \(answer.text)")
        }
        #expect(try await fixture.call("GET", "/rest/v1/device_tokens?select=token", bearer: alice.token).rows.isEmpty)
    }

    @Test func aTokenRegisteredByAnotherUserLeavesTheirRowOnly() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let bob = try await fixture.signUp("b@example.com")
        let row = #"{"token":"\#(Self.token)","platform":"ios"}"#
        let first = try await fixture.call("POST", "/rest/v1/device_tokens?on_conflict=user_id,token", bearer: alice.token, body: row)
        #expect(first.status == 201, "\(first.text)")
        // Alice signed out without her wipe reaching the server; Bob signs in on the same device.
        let second = try await fixture.call("POST", "/api/creator/device_tokens", bearer: bob.token, body: row)
        #expect(second.status == 201, "\(second.text)")
        let all = try await fixture.call("GET", "/rest/v1/device_tokens?select=user_id,token", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey])
        #expect(all.rows.map { $0["user_id"]?.stringValue } == [bob.id], "the device belongs to whoever registered it last")
        let again = try await fixture.call("POST", "/rest/v1/device_tokens?on_conflict=user_id,token", bearer: bob.token, headers: ["prefer": "resolution=merge-duplicates"], body: row)
        #expect(again.status == 201 || again.status == 200, "\(again.text)")
        #expect(try await fixture.call("GET", "/rest/v1/device_tokens?select=token", bearer: bob.token).rows.count == 1)
    }

    @Test func creatorEndpointRefusesStrangersAndBadInput() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let anon = try await fixture.call("POST", "/api/creator/device_tokens", body: #"{"token":"\#(Self.token)"}"#)
        #expect(anon.status == 401 && anon.object["error"] == "unauthorized")
        let service = try await fixture.call("POST", "/api/creator/device_tokens", bearer: fixture.serviceKey, body: #"{"token":"\#(Self.token)"}"#)
        #expect(service.status == 403)
        for (body, words) in [
            (#"{"token":"zz11"}"#, "not a hex digit"), (#"{"token":"0a0b"}"#, "8 to 256 bytes"), (#"{}"#, "token is required"),
            (#"{"token":"\#(Self.token)","environment":"staging"}"#, "sandbox, production"), (#"{"token":1}"#, "token is required"),
            (#"{"token":"\#(Self.token)","colour":"red"}"#, "unknown field"), ("[1]", "JSON object"), ("{", "not JSON"),
        ] {
            let answer = try await fixture.call("POST", "/api/creator/device_tokens", bearer: alice.token, body: body)
            #expect(answer.status == 400 && answer.object["message"]?.stringValue?.contains(words) == true, "\(body): \(answer.text)")
        }
        let rows = try await fixture.call("GET", "/rest/v1/device_tokens?select=token", bearer: alice.token)
        #expect(rows.rows.isEmpty, "nothing stored by refused requests")
    }

    @Test func dataAPIChecksTokensAndEnvironments() async throws {
        let alice = try await fixture.signUp("a@example.com")
        let upsert = ["prefer": "resolution=merge-duplicates,return=representation"]
        let bad = try await fixture.call(
            "POST", "/rest/v1/device_tokens?on_conflict=user_id,token", bearer: alice.token, headers: upsert, body: #"{"token":"<ab cd>"}"#)
        #expect(bad.status == 400 && bad.object["code"] == "23514", "\(bad.text)")
        #expect(bad.object["message"] == #"new row for relation "device_tokens" violates check constraint "device_tokens_token_check""#)
        let long = String(repeating: "0", count: 514)
        let tooLong = try await fixture.call("POST", "/rest/v1/device_tokens", bearer: alice.token, body: #"{"token":"\#(long)"}"#)
        #expect(tooLong.status == 400 && tooLong.object["code"] == "23514")
        let good = try await fixture.call(
            "POST", "/rest/v1/device_tokens?on_conflict=user_id,token", bearer: alice.token, headers: upsert,
            body: #"{"token":"\#(Self.token)","environment":"sandbox"}"#)
        #expect(good.status == 201 && good.rows.first?["environment"] == "sandbox")
        let patched = try await fixture.call(
            "PATCH", "/rest/v1/device_tokens?token=eq.\(Self.token)", bearer: alice.token, body: #"{"environment":"prod"}"#)
        #expect(patched.status == 400 && patched.object["code"] == "23514")
    }
}

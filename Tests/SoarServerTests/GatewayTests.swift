import Foundation
import SoarCore
import SoarCrypto
import SoarTesting
import Testing

/// API keys and JWTs: every forged, broken or stale token is refused, never a 500.
@Suite(.timeLimit(.minutes(5))) struct GatewayTests {
    let fixture: ServerFixture
    let time = ManualTime(Date())

    init() async throws {
        let time = self.time
        fixture = try await ServerFixture.start(now: time.now)
    }

    func token(_ claims: [String: JSONValue], secret: String = "a-test-secret-that-is-long-enough-0123456789") throws -> String {
        try JWT(header: ["typ": "JWT"], claims: claims).signed(secret: Data(secret.utf8))
    }

    @Test func apiKeysAreRequiredAndMustBeTheProjects() async throws {
        let missing = try await fixture.call("GET", "/rest/v1/todos", headers: ["apikey": ""])
        #expect(missing.status == 401 && missing.object["message"] == "No API key found in request")
        let garbage = try await fixture.call("GET", "/rest/v1/todos", headers: ["apikey": "garbage"])
        #expect(garbage.status == 401 && garbage.object["message"] == "Invalid API key")
        let signup = try await fixture.call("POST", "/auth/v1/signup", headers: ["apikey": "garbage"], body: #"{"email":"a@b.co","password":"xxxxxxx"}"#)
        #expect(signup.status == 401)
    }

    @Test func forgedAndBrokenTokensAre401() async throws {
        let user = try await fixture.signUp("a@example.com")
        let parts = user.token.split(separator: ".").map(String.init)
        let noneHeader = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64URLEncodedString()
        let tamperedClaims = Data(#"{"sub":"\#(user.id)","role":"service_role"}"#.utf8).base64URLEncodedString()
        let exp = Int(time.date.timeIntervalSince1970) + 3600
        let forgedService = try token(["role": "service_role", "exp": .int(exp)], secret: "another-secret-that-is-long-enough-000000")
        let expired = try token(["role": "authenticated", "sub": .string(user.id), "exp": .int(exp - 7200)])
        let now = Int(time.date.timeIntervalSince1970)
        let bearers = [
            "\(noneHeader).\(parts[1]).", "\(parts[0]).\(tamperedClaims).\(parts[2])", forgedService, expired, "not.a.jwt", "x",
            try token(["role": "postgres", "exp": .int(exp)]),
            // Signed with the right secret, but not valid yet, or for another audience.
            try token(["role": "authenticated", "sub": .string(user.id), "exp": .int(exp), "nbf": .int(now + 600)]),
            try token(["role": "authenticated", "sub": .string(user.id), "exp": .int(exp), "aud": "another-app"]),
            try token(["role": "authenticated", "sub": .string(user.id), "exp": .int(exp), "aud": ["x", "y"]]),
        ]
        for bearer in bearers {
            let answer = try await fixture.call("GET", "/rest/v1/todos", bearer: bearer)
            #expect(answer.status == 401, "\(bearer): \(answer.text)")
            #expect(["PGRST301", "PGRST303"].contains(answer.object["code"]?.stringValue ?? ""))
            let me = try await fixture.call("GET", "/auth/v1/user", bearer: bearer)
            #expect(me.status == 403 || me.status == 401)
        }
        let rows = try await fixture.call("GET", "/rest/v1/todos", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey])
        #expect(rows.status == 200, "the real service key still works")
        // Within the allowed clock skew, and with this server's audience in a list, a token is taken.
        for claims: [String: JSONValue] in [["nbf": .int(now + 20)], ["aud": ["authenticated", "other"]]] {
            let bearer = try token(claims.merging(["role": "authenticated", "sub": .string(user.id), "exp": .int(exp)]) { first, _ in first })
            #expect(try await fixture.call("GET", "/rest/v1/todos", bearer: bearer).status == 200)
        }
    }

    @Test func anAccessTokenExpiresWithItsClock() async throws {
        let user = try await fixture.signUp("e@example.com")
        #expect(try await fixture.call("GET", "/rest/v1/todos", bearer: user.token).status == 200)
        time.advance(by: 3601)
        let late = try await fixture.call("GET", "/rest/v1/todos", bearer: user.token)
        #expect(late.status == 401 && late.object["code"] == "PGRST303")
    }
}

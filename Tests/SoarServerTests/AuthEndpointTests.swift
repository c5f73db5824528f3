import Foundation
import SoarCore
import SoarAuth
import SoarCrypto
import SoarServer
import SoarStore
import SoarTesting
import Testing

/// The GoTrue subset: sessions as supabase clients parse them, GoTrue's errors, refresh rotation, sign-out.
@Suite(.timeLimit(.minutes(5))) struct AuthEndpointTests {
    let fixture: ServerFixture
    let time = ManualTime(Date())

    init() async throws {
        let time = self.time
        fixture = try await ServerFixture.start(now: time.now)
    }

    @Test func signUpAnswersAFullSession() async throws {
        let answer = try await fixture.call("POST", "/auth/v1/signup", body: #"{"email":"Ann@Example.com","password":"secret-1","data":{"name":"Ann"}}"#)
        #expect(answer.status == 200)
        let session = answer.object
        for key in ["access_token", "token_type", "expires_in", "expires_at", "refresh_token", "user"] { #expect(session[key] != nil, "\(key)") }
        let user = session["user"]?.objectValue ?? [:]
        for key in ["id", "aud", "role", "email", "app_metadata", "user_metadata", "created_at", "updated_at"] { #expect(user[key] != nil, "\(key)") }
        #expect(user["email"] == "ann@example.com")
        #expect(user["user_metadata"]?.objectValue?["name"] == "Ann")
        #expect(!answer.text.contains("pbkdf2"), "no password hash is ever returned")
        let claims = try #require(try? JWTClaims.read(session["access_token"]?.stringValue ?? ""))
        for key in ["sub", "role", "aud", "exp", "iat", "iss", "email", "phone", "session_id", "aal", "amr", "is_anonymous", "app_metadata", "user_metadata"] {
            #expect(claims[key] != nil, "claim \(key)")
        }
        #expect(claims["role"] == "authenticated")
    }

    @Test func gotrueErrorsHaveTheirCodes() async throws {
        _ = try await fixture.signUp("a@example.com")
        let again = try await fixture.call("POST", "/auth/v1/signup", body: #"{"email":"a@example.com","password":"whatever1"}"#)
        #expect(again.status == 422 && again.object["error_code"] == "user_already_exists")
        let weak = try await fixture.call("POST", "/auth/v1/signup", body: #"{"email":"b@example.com","password":"123"}"#)
        #expect(weak.status == 422 && weak.object["error_code"] == "weak_password")
        let control = try await fixture.call("POST", "/auth/v1/signup", body: #"{"email":"a\u0000b@example.com","password":"whatever1"}"#)
        #expect(control.status == 400 && control.object["error_code"] == "validation_failed", "\(control.text)")
        let wrong = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"a@example.com","password":"nope-nope"}"#)
        #expect(wrong.status == 400 && wrong.object["error_code"] == "invalid_credentials")
        #expect(wrong.object["msg"] == "Invalid login credentials")
        let unknown = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"x@example.com","password":"nope-nope"}"#)
        #expect(unknown.object["error_code"] == "invalid_credentials", "an unknown email reads the same as a wrong password")
        let garbage = try await fixture.call("POST", "/auth/v1/signup", body: "{not json")
        #expect(garbage.status == 400 && garbage.object["error_code"] == "bad_json")
        let grant = try await fixture.call("POST", "/auth/v1/token?grant_type=magic", body: "{}")
        #expect(grant.status == 400)
    }

    /// supabase-swift sends `X-Supabase-Api-Version: 2024-01-01` and decodes `{code, message}`
    /// with `code` a string; older clients read `{code, error_code, msg}`.
    @Test func errorsTakeTheShapeTheClientsAPIVersionAsksFor() async throws {
        let user = try await fixture.signUp("a@example.com")
        let versioned = ["x-supabase-api-version": "2024-01-01"]
        let wrong = try await fixture.call("POST", "/auth/v1/token?grant_type=password", headers: versioned, body: #"{"email":"a@example.com","password":"nope-nope"}"#)
        #expect(wrong.status == 400 && wrong.object == ["code": "invalid_credentials", "message": "Invalid login credentials"], "\(wrong.text)")
        #expect(wrong.headers["x-supabase-api-version"] == "2024-01-01" && wrong.headers["x-sb-error-code"] == "invalid_credentials")
        let later = try await fixture.call("POST", "/auth/v1/token?grant_type=password", headers: ["x-supabase-api-version": "2025-06-30"], body: #"{"email":"a@example.com","password":"nope-nope"}"#)
        #expect(later.object["code"] == "invalid_credentials" && later.headers["x-supabase-api-version"] == "2024-01-01")
        for header in ["2023-12-31", "not a date", "2024-13-01"] {
            let old = try await fixture.call("POST", "/auth/v1/token?grant_type=password", headers: ["x-supabase-api-version": header], body: #"{"email":"a@example.com","password":"nope-nope"}"#)
            #expect(old.object["code"] == 400 && old.object["error_code"] == "invalid_credentials" && old.headers["x-supabase-api-version"] == nil, "\(header): \(old.text)")
        }
        let weak = try await fixture.call("POST", "/auth/v1/signup", headers: versioned, body: #"{"email":"b@example.com","password":"123"}"#)
        #expect(weak.status == 422 && weak.object["code"] == "weak_password" && weak.object["weak_password"]?.objectValue?["reasons"] == ["length"], "\(weak.text)")
        // A session signed out elsewhere: its refresh token is refused with a code the client clears it on.
        #expect(try await fixture.call("POST", "/auth/v1/logout?scope=global", bearer: user.token).status == 204)
        let refresh = try await fixture.call("POST", "/auth/v1/token?grant_type=refresh_token", headers: versioned, body: #"{"refresh_token":"\#(user.refresh)"}"#)
        #expect(["refresh_token_not_found", "session_not_found"].contains(refresh.object["code"]?.stringValue ?? ""), "\(refresh.text)")
        let stale = try await fixture.call("GET", "/auth/v1/user", bearer: user.token, headers: versioned)
        #expect(stale.object["code"] == "session_not_found", "\(stale.text)")
    }

    @Test func mailedCodesAndAuthCodesExpire() async throws {
        func code(_ email: String) async throws -> String {
            let mails = try await fixture.call("GET", "/auth/v1/mailbox", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey])
            let text = mails.json?.arrayValue?.last { $0.objectValue?["to"] == .string(email) }?.objectValue?["text"]?.stringValue ?? ""
            return try #require(text.firstMatch(of: /\b(\d{6})\b/).map { String($0.1) }, "\(mails.text)")
        }
        #expect(try await fixture.call("POST", "/auth/v1/otp", body: #"{"email":"late@example.com"}"#).status == 200)
        let sent = try await code("late@example.com")
        time.advance(by: 3601)
        let late = try await fixture.call("POST", "/auth/v1/verify", body: #"{"type":"email","email":"late@example.com","token":"\#(sent)"}"#)
        #expect(late.status == 403 && late.object["error_code"] == "otp_expired", "\(late.text)")
        // A PKCE auth code waits five minutes for its exchange.
        let verifier = String(repeating: "v", count: 50)
        let challenge = sha256(Data(verifier.utf8)).base64URLEncodedString()
        #expect(try await fixture.call("POST", "/auth/v1/otp", body: #"{"email":"pkce@example.com","code_challenge":"\#(challenge)","code_challenge_method":"s256"}"#).status == 200)
        let mails = try await fixture.call("GET", "/auth/v1/mailbox", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey])
        let text = mails.json?.arrayValue?.last?.objectValue?["text"]?.stringValue ?? ""
        let link = try #require(text.firstMatch(of: /(http\S+verify\S+)/).map { String($0.1) })
        // Opened as a browser opens it, without following the redirect.
        let port = try #require(UInt16(fixture.url.split(separator: ":").last ?? ""))
        let browser = try RawSocket(port: port)
        browser.send("GET \(link.dropFirst(fixture.url.count)) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let answer = browser.readAll(timeout: 10)
        let location = answer.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location:") }.map { String($0.dropFirst("location:".count)).trimmingCharacters(in: .whitespaces) } ?? ""
        let authCode = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value, "\(answer)")
        time.advance(by: 301)
        let expired = try await fixture.call("POST", "/auth/v1/token?grant_type=pkce", body: #"{"auth_code":"\#(authCode)","code_verifier":"\#(verifier)"}"#)
        #expect(expired.status == 400 && expired.object["error_code"] == "flow_state_expired", "\(expired.text)")
    }

    @Test func anonymousSignInIsASignUpWithoutEmail() async throws {
        let answer = try await fixture.call("POST", "/auth/v1/signup", body: #"{"data":{}}"#)
        #expect(answer.status == 200)
        #expect(answer.object["user"]?.objectValue?["is_anonymous"] == .bool(true))
    }

    @Test func refreshRotatesAndReuseRevokesTheSession() async throws {
        let user = try await fixture.signUp("r@example.com")
        let first = try await fixture.call("POST", "/auth/v1/token?grant_type=refresh_token", body: #"{"refresh_token":"\#(user.refresh)"}"#)
        #expect(first.status == 200)
        let next = try #require(first.object["refresh_token"]?.stringValue)
        #expect(next != user.refresh)
        time.advance(by: 60)
        let reuse = try await fixture.call("POST", "/auth/v1/token?grant_type=refresh_token", body: #"{"refresh_token":"\#(user.refresh)"}"#)
        #expect(reuse.status == 400 && reuse.object["error_code"] == "refresh_token_already_used")
        let afterReuse = try await fixture.call("POST", "/auth/v1/token?grant_type=refresh_token", body: #"{"refresh_token":"\#(next)"}"#)
        #expect(afterReuse.status == 400, "the whole session ended, successor included")
        let missing = try await fixture.call("POST", "/auth/v1/token?grant_type=refresh_token", body: #"{"refresh_token":"made-up"}"#)
        #expect(missing.object["error_code"] == "refresh_token_not_found")
    }

    @Test func parallelRefreshesGetTheSameLiveToken() async throws {
        let user = try await fixture.signUp("p@example.com")
        let body = #"{"refresh_token":"\#(user.refresh)"}"#
        let answers = try await withThrowingTaskGroup(of: ServerFixture.Answer.self) { group in
            for _ in 0..<4 { group.addTask { try await fixture.call("POST", "/auth/v1/token?grant_type=refresh_token", body: body) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.status == 200 })
        let issued = Set(answers.compactMap { $0.object["refresh_token"]?.stringValue })
        #expect(issued.count == 1, "one successor, not one line of tokens a caller")
        let live = try #require(issued.first)
        let next = try await fixture.call("POST", "/auth/v1/token?grant_type=refresh_token", body: #"{"refresh_token":"\#(live)"}"#)
        let newest = try #require(next.object["refresh_token"]?.stringValue)
        time.advance(by: 5)
        let lostAnswer = try await fixture.call("POST", "/auth/v1/token?grant_type=refresh_token", body: body)
        #expect(lostAnswer.status == 200 && lostAnswer.object["refresh_token"] == .string(newest), "within the grace: the live token")
        time.advance(by: 60)
        let reuse = try await fixture.call("POST", "/auth/v1/token?grant_type=refresh_token", body: body)
        #expect(reuse.object["error_code"] == "refresh_token_already_used")
    }

    @Test func signedOutTokensAreRefusedEverywhereAtOnce() async throws {
        let user = try await fixture.signUp("s@example.com")
        #expect(try await fixture.call("GET", "/auth/v1/user", bearer: user.token).status == 200)
        #expect(try await fixture.call("GET", "/rest/v1/todos", bearer: user.token).status == 200)
        #expect(try await fixture.call("POST", "/auth/v1/logout", bearer: user.token).status == 204)
        let me = try await fixture.call("GET", "/auth/v1/user", bearer: user.token)
        #expect(me.status == 403 && me.object["error_code"] == "session_not_found")
        let rows = try await fixture.call("GET", "/rest/v1/todos", bearer: user.token)
        #expect(rows.status == 401)
        let refresh = try await fixture.call("POST", "/auth/v1/token?grant_type=refresh_token", body: #"{"refresh_token":"\#(user.refresh)"}"#)
        #expect(refresh.status == 400)
    }

    @Test func aNewPasswordEndsTheOtherSessions() async throws {
        let user = try await fixture.signUp("pw@example.com", password: "password-1")
        let second = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"pw@example.com","password":"password-1"}"#)
        let other = try #require(second.object["access_token"]?.stringValue)
        let changed = try await fixture.call("PUT", "/auth/v1/user", bearer: user.token, body: #"{"password":"password-2"}"#)
        #expect(changed.status == 200)
        #expect(try await fixture.call("GET", "/auth/v1/user", bearer: other).status == 403, "the other session ended")
        #expect(try await fixture.call("GET", "/auth/v1/user", bearer: user.token).status == 200, "this one lives")
        let renamed = try await fixture.call("PUT", "/auth/v1/user", bearer: user.token, body: #"{"data":{"name":"x"}}"#)
        #expect(renamed.status == 200)
        #expect(try await fixture.call("GET", "/auth/v1/user", bearer: user.token).status == 200, "new data alone ends nothing")
    }

    @Test func logoutScopes() async throws {
        let user = try await fixture.signUp("o@example.com", password: "password-1")
        let second = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"o@example.com","password":"password-1"}"#)
        let other = try #require(second.object["access_token"]?.stringValue)
        #expect(try await fixture.call("POST", "/auth/v1/logout?scope=others", bearer: user.token).status == 204)
        #expect(try await fixture.call("GET", "/auth/v1/user", bearer: other).status == 403, "the other session ended")
        #expect(try await fixture.call("GET", "/auth/v1/user", bearer: user.token).status == 200, "this one lives")
        #expect(try await fixture.call("POST", "/auth/v1/logout?scope=local", bearer: user.token).status == 204)
        #expect(try await fixture.call("GET", "/auth/v1/user", bearer: user.token).status == 403)
    }

    @Test func updateUserChangesPasswordAndMergesData() async throws {
        let user = try await fixture.signUp("u@example.com", password: "password-1")
        let answer = try await fixture.call("PUT", "/auth/v1/user", bearer: user.token, body: #"{"password":"password-2","data":{"theme":"dark"}}"#)
        #expect(answer.status == 200)
        #expect(answer.object["user_metadata"]?.objectValue?["theme"] == "dark")
        let old = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"u@example.com","password":"password-1"}"#)
        #expect(old.status == 400)
        let new = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"u@example.com","password":"password-2"}"#)
        #expect(new.status == 200)
    }

    @Test func signInIsRateLimitedPerEmailAndAddress() async throws {
        _ = try await fixture.signUp("l@example.com")
        var statuses: [Int] = []
        for _ in 0..<10 {
            statuses.append(try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"l@example.com","password":"wrong-pass"}"#).status)
            time.advance(by: 1)
        }
        #expect(statuses.allSatisfy { $0 == 400 })
        let refused = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"l@example.com","password":"wrong-pass"}"#)
        #expect(refused.status == 429 && refused.object["error_code"] == "over_request_rate_limit")
        #expect(refused.headers["retry-after"] == "290", "the first attempt, 10 s ago, leaves the 300 s window in 290 s")
        // The owner signing in from another address is not locked out by someone else's guesses.
        let port = try #require(UInt16(fixture.url.split(separator: ":").last ?? ""))
        let owner = try RawSocket(port: port, from: "127.0.0.4")
        let body = #"{"email":"l@example.com","password":"correct-horse"}"#
        owner.send("POST /auth/v1/token?grant_type=password HTTP/1.1\r\nHost: x\r\napikey: \(fixture.anonKey)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        #expect(owner.readAll(timeout: 10).hasPrefix("HTTP/1.1 200"))
        time.advance(by: 290)
        let later = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"l@example.com","password":"correct-horse"}"#)
        #expect(later.status == 200, "the window passed")
    }

    @Test func codesCannotBeGuessedByTryingThemAll() async throws {
        let email = "guess@example.com"
        _ = try await fixture.call("POST", "/auth/v1/otp", body: #"{"email":"\#(email)"}"#)
        var statuses: [Int] = []
        for attempt in 0..<30 {
            statuses.append(try await fixture.call("POST", "/auth/v1/verify", body: #"{"type":"email","email":"\#(email)","token":"\#(String(format: "%06d", attempt))"}"#).status)
        }
        #expect(statuses.allSatisfy { $0 == 403 }, "\(statuses)")
        let refused = try await fixture.call("POST", "/auth/v1/verify", body: #"{"type":"email","email":"\#(email)","token":"999999"}"#)
        #expect(refused.status == 429 && refused.object["error_code"] == "over_request_rate_limit", "GoTrue's RATE_LIMIT_VERIFY: \(refused.text)")
    }

    @Test func refreshesAreLimitedPerAddress() async throws {
        let limited = try await ServerFixture.start(configure: { $0.authLimits.refreshPerAddress = 2 }, now: time.now)
        var token = try await limited.signUp("r@example.com").refresh
        for _ in 0..<2 {
            let answer = try await limited.call("POST", "/auth/v1/token?grant_type=refresh_token", body: #"{"refresh_token":"\#(token)"}"#)
            #expect(answer.status == 200)
            token = answer.object["refresh_token"]?.stringValue ?? ""
        }
        let refused = try await limited.call("POST", "/auth/v1/token?grant_type=refresh_token", body: #"{"refresh_token":"\#(token)"}"#)
        #expect(refused.status == 429, "\(refused.text)")
    }

    @Test func usersImportedFromSupabaseKeepTheirIdAndBcryptPassword() async throws {
        let service = fixture.serviceKey
        let vector = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"  // "U*U"
        let id = "5b0f3c2e-8a41-4d7b-9c3e-2f6a1b7d9e01"
        let made = try await fixture.call(
            "POST", "/auth/v1/admin/users", bearer: service, headers: ["apikey": service],
            body: #"{"email":"imported@example.com","password_hash":"\#(vector)","id":"\#(id)","email_confirm":true}"#)
        #expect(made.status == 200 && made.object["id"] == .string(id), "\(made.text)")
        for _ in 0..<2 {  // the bcrypt hash, then the Argon2id one it was upgraded to
            let signedIn = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"imported@example.com","password":"U*U"}"#)
            #expect(signedIn.status == 200, "\(signedIn.text)")
        }
        let stored = try fixture.server.auth.store.user(id: id)?.passwordHash ?? ""
        #expect(stored.hasPrefix("$argon2id$"), "upgraded at the first sign-in: \(stored)")
        let both = try await fixture.call(
            "POST", "/auth/v1/admin/users", bearer: service, headers: ["apikey": service],
            body: #"{"email":"x@example.com","password":"a-password","password_hash":"\#(vector)"}"#)
        #expect(both.status == 400 && both.text.contains("Only a password or a password hash"))
        let unknown = try await fixture.call(
            "POST", "/auth/v1/admin/users", bearer: service, headers: ["apikey": service], body: #"{"email":"y@example.com","password_hash":"$1$md5$crypt"}"#)
        #expect(unknown.status == 400 && unknown.text.contains("Invalid password hash"))
    }

    @Test func signingInOftenIsNotGuessing() async throws {
        _ = try await fixture.signUp("often@example.com")
        for attempt in 0..<15 {
            let answer = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"often@example.com","password":"correct-horse"}"#)
            #expect(answer.status == 200, "sign-in \(attempt): the per-email limit counts failures only")
        }
    }

    @Test func adminEndpointsNeedTheServiceRole() async throws {
        let user = try await fixture.signUp("m@example.com")
        #expect(try await fixture.call("GET", "/auth/v1/admin/users", bearer: user.token).status == 403)
        #expect(try await fixture.call("GET", "/auth/v1/admin/users", bearer: fixture.anonKey).status == 403)
        let service = fixture.serviceKey
        let far = try await fixture.call("GET", "/auth/v1/admin/users?page=200000000000000000", bearer: service, headers: ["apikey": service])
        #expect(far.status == 200 && far.object["users"] == .array([]), "a page past Int's reach is empty: \(far.text)")
        let list = try await fixture.call("GET", "/auth/v1/admin/users", bearer: service, headers: ["apikey": service])
        #expect(list.status == 200 && list.object["users"]?.arrayValue?.count == 1)
        let made = try await fixture.call(
            "POST", "/auth/v1/admin/users", bearer: service, headers: ["apikey": service], body: #"{"email":"n@example.com","password":"password-9","email_confirm":true}"#)
        #expect(made.status == 200)
        let id = try #require(made.object["id"]?.stringValue)
        let changed = try await fixture.call("PUT", "/auth/v1/admin/users/\(id)", bearer: service, headers: ["apikey": service], body: #"{"user_metadata":{"plan":"pro"}}"#)
        #expect(changed.object["user_metadata"]?.objectValue?["plan"] == "pro")
        #expect(try await fixture.call("DELETE", "/auth/v1/admin/users/\(id)", bearer: service, headers: ["apikey": service]).status == 200)
        #expect(try await fixture.call("GET", "/auth/v1/admin/users/\(id)", bearer: service, headers: ["apikey": service]).status == 404)
    }
}

/// Reads a JWT's claims without checking it (the tests only look).
enum JWTClaims {
    static func read(_ token: String) throws -> [String: JSONValue] {
        let part = token.split(separator: ".")[1]
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return try JSONValue.read(Data(base64Encoded: text)!).objectValue ?? [:]
    }
}

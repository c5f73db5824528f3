import Foundation
import SoarClient
import SoarCore
import SoarTesting
import Testing

@testable import SoarAuth

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// SoarClient's auth as an iOS app meets it against `soar serve --email-confirm required`: a
/// confirmation link that opens the app (PKCE), an email change, and an authenticator app.
@MainActor @Suite(.timeLimit(.minutes(2))) struct ClientAuthFlowTests {
    static let callback = "myapp://auth-callback"

    /// The newest link mailed to `email`, opened as a browser would: where it sends the app.
    static func openLink(_ served: ClientEndToEndTests.Served, to email: String) async throws -> URL {
        let mails = try await ClientEndToEndTests.get(served.url.absoluteString + "/auth/v1/mailbox", key: served.service)
        let text = mails.arrayValue?.last { $0.objectValue?["to"] == .string(email) }?.objectValue?["text"]?.stringValue ?? ""
        let link = try #require(text.firstMatch(of: /(http\S+\/auth\/v1\/verify\S+)/).map { String($0.1) }, "\(mails)")
        let location = try ProcessRunner.run("curl", ["-s", "-o", "/dev/null", "-w", "%{redirect_url}", link]).stdout
        return try #require(URL(string: location), "\(location)")
    }

    static func code(_ secret: String) -> String {
        TOTP.code(secret: Base32.decode(secret) ?? Data(), counter: UInt64(Date().timeIntervalSince1970 / 30)) ?? ""
    }

    @Test func aConfirmationLinkOpensTheAppAndAnAuthenticatorRaisesTheSession() async throws {
        let dir = TemporaryDirectory("soar-client-auth")
        let served = try ClientEndToEndTests.serve(
            dir, ["--port", "0", "--email-confirm", "required"], environment: ["GOTRUE_URI_ALLOW_LIST": Self.callback, "GOTRUE_SMTP_MAX_FREQUENCY": "1ms"])
        let store = InMemorySecureStore()
        let client = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: store)
        let email = ClientEndToEndTests.email()

        // Sign-up waits for the mail; the password does not sign in yet, in words a user acts on.
        #expect(try await client.auth.signUp(email: email, password: "correct-horse", redirectTo: URL(string: Self.callback)!) == nil)
        let early = await #expect(throws: AppError.self) { try await client.auth.signIn(email: email, password: "correct-horse") }
        #expect(early?.message == "Confirm your email address, then sign in.")
        let opened = try await Self.openLink(served, to: email)
        #expect(opened.absoluteString.hasPrefix(Self.callback) && opened.query?.hasPrefix("code=") == true, "\(opened)")
        // Only this device holds the verifier.
        let elsewhere = Soar(supabaseURL: served.url, supabaseKey: served.anon, store: InMemorySecureStore())
        let stranger = await #expect(throws: AppError.self) { try await elsewhere.auth.session(from: opened) }
        #expect(stranger?.message.contains("opened on another device") == true)
        let session = try #require(try await client.auth.session(from: opened))
        let current = client.auth.currentSession
        #expect(session.user.email == email && current?.user.email == email)
        // The link again: used.
        let reused = await #expect(throws: AppError.self) { try await client.auth.session(from: try await Self.openLink(served, to: email)) }
        #expect(reused?.message.contains("expired or was already used") == true, "\(String(describing: reused))")

        // An authenticator app: enrolled, verified, the session at aal2.
        #expect(try await client.auth.assuranceLevel() == ("aal1", "aal1"))
        let enrollment = try await client.auth.enrollTOTP(friendlyName: "Phone")
        #expect(enrollment.uri.hasPrefix("otpauth://totp/") && enrollment.qrCode.hasPrefix("<svg"))
        let wrong = await #expect(throws: AppError.self) { try await client.auth.verifyTOTP(factorID: enrollment.factorID, code: "000000") }
        #expect(wrong?.message.contains("not right") == true || Self.code(enrollment.secret) == "000000")
        try await client.auth.verifyTOTP(factorID: enrollment.factorID, code: Self.code(enrollment.secret))
        #expect(try await client.auth.assuranceLevel() == ("aal2", "aal2"))
        #expect(try await client.auth.factors().map(\.status) == ["verified"])
        try await client.auth.unenroll(factorID: enrollment.factorID)
        #expect(try await client.auth.factors().isEmpty)

        // An email change: both addresses confirm, the second code completes it.
        let newEmail = ClientEndToEndTests.email()
        try await client.auth.changeEmail(to: newEmail)
        #expect(try await client.auth.confirmEmailChange(email: newEmail, code: try await ClientEndToEndTests.mailedCode(served, to: newEmail)) == nil)
        let changed = try await client.auth.confirmEmailChange(email: email, code: try await ClientEndToEndTests.mailedCode(served, to: email))
        let now = client.auth.currentSession
        #expect(changed?.user.email == newEmail && now?.user.email == newEmail)
        try await client.auth.resendConfirmation(email: newEmail)  // nothing to confirm: answered the same
        #expect(served.process.stop() == 0)
    }
}

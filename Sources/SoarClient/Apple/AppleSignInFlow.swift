#if canImport(AuthenticationServices) && canImport(CryptoKit)
    import AuthenticationServices
    import CryptoKit
    import Foundation

    /// Sign in with Apple on Apple systems: a raw nonce kept for the exchange and its SHA-256 (hex)
    /// on Apple's request, then the credential's identity token exchanged for a session.
    ///
    /// ```swift
    /// let flow = AppleSignInFlow()
    /// SignInWithAppleButton(.signIn, onRequest: flow.prepare) { result in
    ///     if case .success(let authorization) = result,
    ///         let credential = authorization.credential as? ASAuthorizationAppleIDCredential {
    ///         Task { _ = try await flow.signIn(with: credential, auth: client.auth) }
    ///     }
    /// }
    /// ```
    public struct AppleSignInFlow: Sendable {
        public let rawNonce: String

        public init() {
            var generator = SystemRandomNumberGenerator()
            rawNonce = PKCE.base64URL(Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        }

        /// Asks for the email and name, and puts the hashed nonce on the request.
        public func prepare(_ request: ASAuthorizationAppleIDRequest) {
            request.requestedScopes = [.email, .fullName]
            request.nonce = SHA256.hash(data: Data(rawNonce.utf8)).map { String(format: "%02x", $0) }.joined()
        }

        /// The session for Apple's credential.
        @discardableResult
        public func signIn(with credential: ASAuthorizationAppleIDCredential, auth: SoarAuthClient) async throws(AppError) -> AuthSession {
            guard let data = credential.identityToken, let token = String(data: data, encoding: .utf8) else {
                throw AppError(authCode: "invalid_request")
            }
            return try await auth.signInWithApple(idToken: token, nonce: rawNonce)
        }
    }
#endif

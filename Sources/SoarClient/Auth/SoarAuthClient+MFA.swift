import Foundation
import SoarCore

/// A second factor: an authenticator app's 6-digit codes (TOTP).
public struct MFAFactor: Codable, Hashable, Sendable {
    public var id: String
    public var friendlyName: String?
    public var factorType: String
    /// `unverified` until a code from it was verified once, then `verified`.
    public var status: String

    enum CodingKeys: String, CodingKey {
        case id, status
        case friendlyName = "friendly_name"
        case factorType = "factor_type"
    }
}

/// What enrolling answers: show `qrCode` (an SVG) or `uri` to the authenticator app, or let the
/// user type `secret`; then ``SoarAuthClient/verifyTOTP(factorID:code:)`` with its first code.
public struct TOTPEnrollment: Sendable, Hashable {
    public var factorID: String
    public var secret: String
    public var uri: String
    public var qrCode: String
}

/// MFA as supabase-swift's `auth.mfa` offers it.
extension SoarAuthClient {
    /// Adds an authenticator app for the signed-in user (unverified until its first code).
    public func enrollTOTP(friendlyName: String? = nil, issuer: String? = nil) async throws(AppError) -> TOTPEnrollment {
        var fields = ["factor_type": "totp"]
        if let friendlyName { fields["friendly_name"] = friendlyName }
        if let issuer { fields["issuer"] = issuer }
        let data = try await backend.send(Backend.Request(method: "POST", path: "auth/v1/factors", body: Self.json(fields)), bearer: try await validSession().accessToken)
        let answer = (try? JSONValue.read(data).objectValue) ?? [:]
        let totp = answer["totp"]?.objectValue ?? [:]
        guard let id = answer["id"]?.stringValue, let secret = totp["secret"]?.stringValue, let uri = totp["uri"]?.stringValue else {
            throw AppError(.unknown, AppError.Messages.server, original: HTTPFailure(status: 200, body: data))
        }
        return TOTPEnrollment(factorID: id, secret: secret, uri: uri, qrCode: totp["qr_code"]?.stringValue ?? "")
    }

    /// Challenges a factor and verifies the code the app shows: the session moves to `aal2`.
    @discardableResult
    public func verifyTOTP(factorID: String, code: String) async throws(AppError) -> AuthSession {
        let token = try await validSession().accessToken
        let path = "auth/v1/factors/" + (factorID.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(["-"])) ?? "")
        let challenge = try await backend.send(Backend.Request(method: "POST", path: path + "/challenge", body: Data("{}".utf8)), bearer: token)
        guard let challengeID = (try? JSONValue.read(challenge).objectValue?["id"])??.stringValue else {
            throw AppError(.unknown, AppError.Messages.server, original: HTTPFailure(status: 200, body: challenge))
        }
        return try await begin(
            Backend.Request(method: "POST", path: path + "/verify", body: Self.json(["challenge_id": challengeID, "code": code])), bearer: token)
    }

    /// Removes a factor (the session must be `aal2` once a factor is verified).
    public func unenroll(factorID: String) async throws(AppError) {
        let path = "auth/v1/factors/" + (factorID.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(["-"])) ?? "")
        _ = try await backend.send(Backend.Request(method: "DELETE", path: path), bearer: try await validSession().accessToken)
    }

    /// The signed-in user's factors.
    public func factors() async throws(AppError) -> [MFAFactor] {
        let data = try await backend.send(Backend.Request(method: "GET", path: "auth/v1/user"), bearer: try await validSession().accessToken)
        struct Listed: Decodable { var factors: [MFAFactor]? }
        return ((try? JSONCoding.decode(Listed.self, from: data))?.factors) ?? []
    }

    /// The session's assurance level and the one it can reach: `next` is `aal2` when the user has
    /// a verified factor, so the app asks for a code while `current` is still `aal1`.
    public func assuranceLevel() async throws(AppError) -> (current: String, next: String) {
        let session = try await validSession()
        let current = Self.claims(of: session.accessToken)["aal"]?.stringValue ?? "aal1"
        let verified = try await factors().contains { $0.status == "verified" }
        return (current, verified ? "aal2" : "aal1")
    }

    /// An access token's claims (read, not verified: the server verifies them).
    static func claims(of token: String) -> [String: JSONValue] {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return [:] }
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return Data(base64Encoded: text).flatMap { try? JSONValue.read($0).objectValue } ?? [:]
    }
}

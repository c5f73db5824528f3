import CQREncode
import Foundation
import SoarCore
import SoarCrypto
import SoarStore

/// GoTrue's multi-factor authentication with TOTP: enroll a factor (a secret the authenticator
/// app scans), challenge it, verify a code (the session rises to `aal2`), unenroll.
extension AuthService {
    /// How long a challenge waits for its code (GoTrue's default).
    public static let challengeLifetime: TimeInterval = 300
    /// Unverified factors a user may hold at once.
    static let unverifiedFactorLimit = 10

    /// What enrolling answers: the factor, and what the authenticator app needs.
    public struct Enrollment: Sendable {
        public let factor: MFAFactor
        public let uri: String
        /// The URI as a QR code, an SVG (GoTrue's `totp.qr_code`; clients make it a data URI).
        public let qrCode: String
    }

    public func enrollTOTP(user: AuthUser, friendlyName: String?, issuer: String?) throws(AuthError) -> Enrollment {
        let existing = try factorsOf(user.id)
        if let friendlyName, existing.contains(where: { $0.friendlyName == friendlyName }) {
            throw AuthError(422, "mfa_factor_name_conflict", "A factor with the friendly name \"\(friendlyName)\" for this user already exists")
        }
        guard existing.filter({ $0.status == "unverified" }).count < Self.unverifiedFactorLimit else {
            throw AuthError(422, "too_many_enrolled_mfa_factors", "Maximum number of unverified factors reached, unenroll to continue")
        }
        let secret: String
        do { secret = Base32.encode(try randomBytes(20)) } catch { throw .internalFailure("cannot make a TOTP secret: \(error.description)") }
        let time = Timestamp.postgres(now())
        let factor = MFAFactor(
            id: RandomUUID.lowercase(), userID: user.id, friendlyName: friendlyName, type: "totp", status: "unverified", secret: secret, createdAt: time, updatedAt: time)
        do { try store.createFactor(factor) } catch { throw .storeFailed(error) }
        let issuer = issuer ?? URL(string: redirects.siteURL)?.host ?? "Soar"
        var uri = URLComponents()
        uri.scheme = "otpauth"
        uri.host = "totp"
        uri.path = "/\(issuer):\(user.email ?? user.id)"
        uri.queryItems = [URLQueryItem(name: "secret", value: secret), URLQueryItem(name: "issuer", value: issuer)]
        let text = uri.string ?? ""
        return Enrollment(factor: factor, uri: text, qrCode: QRCode.svg(text) ?? "")
    }

    public func challenge(user: AuthUser, factorID: String) throws(AuthError) -> (id: String, expiresAt: Int) {
        let factor = try factor(factorID, of: user)
        let id = RandomUUID.lowercase()
        do { try store.createChallenge(id: id, factorID: factor.id, now: Timestamp.postgres(now())) } catch { throw .storeFailed(error) }
        return (id, Int(now().timeIntervalSince1970 + Self.challengeLifetime))
    }

    /// A code for a challenge: the factor is verified, and the signed-in session is replaced by
    /// one at `aal2`.
    public func verifyFactor(user: AuthUser, sessionID: String?, factorID: String, challengeID: String, code: String, address: String) throws(AuthError) -> AuthSession {
        try admit(address, by: verifications)
        let factor = try factor(factorID, of: user)
        let taken: (factorID: String, createdAt: String)?
        do { taken = RandomUUID.parse(challengeID) == nil ? nil : try store.takeChallenge(id: challengeID) } catch { throw .storeFailed(error) }
        guard let taken, taken.factorID == factor.id else { throw AuthError(404, "mfa_challenge_not_found", "MFA challenge not found") }
        guard let created = Timestamp.parse(taken.createdAt), now().timeIntervalSince(created) <= Self.challengeLifetime else {
            throw AuthError(400, "mfa_challenge_expired", "MFA challenge has expired, verify against another challenge or create a new challenge.")
        }
        guard let secret = Base32.decode(factor.secret), TOTP.accepts(code.trimmingCharacters(in: .whitespaces), secret: secret, at: now()) else {
            throw AuthError(422, "mfa_verification_failed", "Invalid TOTP code entered")
        }
        let time = Timestamp.postgres(now())
        do {
            if factor.status != "verified" { try store.setFactorStatus(id: factor.id, status: "verified", now: time) }
            if let sessionID { try store.deleteSessions(userID: user.id, only: sessionID, except: nil) }
        } catch {
            throw .storeFailed(error)
        }
        return try startSession(for: user, method: "totp", aal: "aal2")
    }

    /// Removes a factor; a user with a verified factor must be at `aal2` to remove one.
    public func unenroll(user: AuthUser, aal: String, factorID: String) throws(AuthError) {
        let factor = try factor(factorID, of: user)
        if try factorsOf(user.id).contains(where: { $0.status == "verified" }), aal != "aal2" {
            throw AuthError(403, "insufficient_aal", "AAL2 required to unenroll verified factor")
        }
        do { try store.deleteFactor(id: factor.id) } catch { throw .storeFailed(error) }
    }

    public func factorsOf(_ userID: String) throws(AuthError) -> [MFAFactor] {
        do { return try store.factors(userID: userID) } catch { throw .storeFailed(error) }
    }

    private func factor(_ id: String, of user: AuthUser) throws(AuthError) -> MFAFactor {
        guard RandomUUID.parse(id) != nil, let factor = try factorsOf(user.id).first(where: { $0.id == id.lowercased() }) else {
            throw AuthError(404, "mfa_factor_not_found", "Factor not found")
        }
        return factor
    }
}

/// RFC 6238 time-based codes: six digits, a 30-second step, HMAC-SHA1.
enum TOTP {
    static func code(secret: Data, counter: UInt64) -> String? {
        var bigEndian = counter.bigEndian
        let message = Data(bytes: &bigEndian, count: 8)
        guard let mac = try? hmacSHA1(key: secret, message: message) else { return nil }
        let bytes = [UInt8](mac)
        let offset = Int(bytes[19] & 0x0f)
        let value = (UInt32(bytes[offset] & 0x7f) << 24) | (UInt32(bytes[offset + 1]) << 16) | (UInt32(bytes[offset + 2]) << 8) | UInt32(bytes[offset + 3])
        return String(format: "%06d", value % 1_000_000)
    }

    /// The code of this step or the one either side (a clock a little off, a code typed late).
    static func accepts(_ code: String, secret: Data, at time: Date) -> Bool {
        guard code.count == 6 else { return false }
        let step = UInt64(max(0, time.timeIntervalSince1970) / 30)
        return [step &- 1, step, step + 1].contains { TOTP.code(secret: secret, counter: $0).map { constantTimeEquals(Data($0.utf8), Data(code.utf8)) } ?? false }
    }
}

/// RFC 4648 base32 without padding, as authenticator apps take TOTP secrets.
enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    static func encode(_ data: Data) -> String {
        var out: [UInt8] = [], buffer = 0, bits = 0
        for byte in data {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> Data? {
        var out = Data(), buffer = 0, bits = 0
        for char in text.uppercased().utf8 where char != UInt8(ascii: "=") {
            guard let value = alphabet.firstIndex(of: char) else { return nil }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> (bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return out
    }
}

/// QR codes through libqrencode, drawn as SVG.
enum QRCode {
    static func svg(_ text: String) -> String? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width), quiet = 4
        var path = ""
        for y in 0..<width {
            for x in 0..<width where code.pointee.data[y * width + x] & 1 == 1 { path += "M\(x + quiet) \(y + quiet)h1v1h-1z" }
        }
        let size = width + 2 * quiet
        let svg = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \##(size) \##(size)" shape-rendering="crispEdges"><rect width="\##(size)" height="\##(size)" fill="#fff"/><path d="\##(path)" fill="#000"/></svg>"##
        return svg
    }
}

extension MFAFactor {
    /// GoTrue's factor object, as `/user` lists it.
    public var json: JSONValue {
        [
            "id": .string(id), "friendly_name": friendlyName.map(JSONValue.string) ?? .null, "factor_type": .string(type),
            "status": .string(status), "created_at": .string(createdAt), "updated_at": .string(updatedAt),
        ]
    }
}

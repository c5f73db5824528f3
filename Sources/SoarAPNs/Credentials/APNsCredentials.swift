import SoarCrypto

/// How the provider proves who it is to APNs.
public enum APNsCredentials: Sendable {
    /// Token-based: a .p8 key, its key id and the team id; requests carry an ES256 provider token.
    case token(teamID: String, keyID: String, key: P256Key)
    /// Certificate-based: a client certificate and key (PEM files), or a PKCS#12 file with its password.
    case certificate(CertificateCredentials)

    /// Token credentials from the .p8 file's text.
    ///
    /// - Throws: ``APNsConfigurationError`` when the text is not an EC P-256 private key.
    public static func token(teamID: String, keyID: String, p8 text: String) throws(APNsConfigurationError) -> APNsCredentials {
        guard !teamID.isEmpty, !keyID.isEmpty else { throw .init("the team id and key id must not be empty") }
        do {
            return .token(teamID: teamID, keyID: keyID, key: try P256Key(privatePEM: text))
        } catch {
            throw .init("cannot use the APNs key as a .p8 EC P-256 private key: \(error.description)")
        }
    }
}

/// A client certificate for certificate-based APNs auth.
public struct CertificateCredentials: Sendable, Hashable {
    public enum Format: String, Sendable { case pem = "PEM", pkcs12 = "P12" }
    public var certificateFile: String
    /// The key file for PEM; nil when the key is inside the certificate file.
    public var keyFile: String?
    public var password: String?
    public var format: Format

    public init(certificateFile: String, keyFile: String? = nil, password: String? = nil, format: Format? = nil) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.password = password
        self.format = format ?? (certificateFile.hasSuffix(".p12") || certificateFile.hasSuffix(".pfx") ? .pkcs12 : .pem)
    }
}

/// A configuration mistake, found before anything is sent.
public struct APNsConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

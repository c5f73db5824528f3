import COpenSSL
import Foundation

/// A throwaway certificate authority: a P-256 key and a self-signed CA certificate, which issues
/// server and client certificates for local TLS (the emulator, tests).
public struct CertificateAuthority: Sendable {
    public let key: P256Key
    public let certificatePEM: String

    /// A new CA named `commonName`, valid for `days`.
    public static func generate(commonName: String, days: Int = 825) throws(OpenSSLError) -> CertificateAuthority {
        let key = try P256Key.generate()
        let pem = try Certificate.issue(
            commonName: commonName, publicKey: key, signer: key, issuer: nil, days: days,
            extensions: [(NID_basic_constraints, "critical,CA:TRUE"), (NID_key_usage, "critical,keyCertSign,cRLSign")])
        return CertificateAuthority(key: key, certificatePEM: pem)
    }

    /// Loads a CA from its PEM certificate and key.
    public init(certificatePEM: String, keyPEM: String) throws(OpenSSLError) {
        self.init(key: try P256Key(privatePEM: keyPEM), certificatePEM: certificatePEM)
    }

    private init(key: P256Key, certificatePEM: String) {
        self.key = key
        self.certificatePEM = certificatePEM
    }

    /// A server certificate for the given DNS names and IP addresses, with a fresh key.
    public func issueServer(dnsNames: [String], ipAddresses: [String], days: Int = 825) throws(OpenSSLError)
        -> (certificatePEM: String, key: P256Key)
    {
        let key = try P256Key.generate()
        let names = (dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" }).joined(separator: ",")
        let pem = try Certificate.issue(
            commonName: dnsNames.first ?? "localhost", publicKey: key, signer: self.key, issuer: certificatePEM,
            days: days,
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"), (NID_subject_alt_name, names),
                (NID_ext_key_usage, "serverAuth"),
            ])
        return (pem, key)
    }

    /// A client certificate (for certificate-based APNs auth), with a fresh key.
    public func issueClient(commonName: String, days: Int = 825) throws(OpenSSLError) -> (certificatePEM: String, key: P256Key) {
        let key = try P256Key.generate()
        let pem = try Certificate.issue(
            commonName: commonName, publicKey: key, signer: self.key, issuer: certificatePEM, days: days,
            extensions: [(NID_basic_constraints, "critical,CA:FALSE"), (NID_ext_key_usage, "clientAuth")])
        return (pem, key)
    }
}

/// X.509 issuing, the one place that builds certificates.
enum Certificate {
    static func issue(
        commonName: String, publicKey: P256Key, signer: P256Key, issuer issuerPEM: String?, days: Int,
        extensions: [(Int32, String)]
    ) throws(OpenSSLError) -> String {
        guard let cert = X509_new() else { throw OpenSSLError("X509_new") }
        defer { X509_free(cert) }
        let issuer: OpaquePointer?
        if let issuerPEM {
            issuer = try withBIO(issuerPEM) { bio in PEM_read_bio_X509(bio, nil, nil, nil) }
            guard issuer != nil else { throw OpenSSLError("the issuer certificate is not PEM") }
        } else {
            issuer = nil
        }
        defer { if let issuer { X509_free(issuer) } }
        try OpenSSLError.check(X509_set_version(cert, 2), "X509_set_version")
        let serial = try randomBytes(16)
        guard let bn = serial.withUnsafeBytes({ BN_bin2bn($0.baseAddress?.assumingMemoryBound(to: UInt8.self), 15, nil) }) else {
            throw OpenSSLError("BN_bin2bn")
        }
        defer { BN_free(bn) }
        guard BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != nil else { throw OpenSSLError("BN_to_ASN1_INTEGER") }
        guard X509_gmtime_adj(X509_getm_notBefore(cert), -3600) != nil, X509_gmtime_adj(X509_getm_notAfter(cert), days * 86400) != nil else {
            throw OpenSSLError("X509_gmtime_adj")
        }
        try OpenSSLError.check(X509_set_pubkey(cert, publicKey.pkey), "X509_set_pubkey")
        let name = X509_get_subject_name(cert)
        try OpenSSLError.check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0), "X509_NAME_add_entry_by_txt CN")
        try OpenSSLError.check(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "Soar development", -1, -1, 0), "X509_NAME_add_entry_by_txt O")
        try OpenSSLError.check(X509_set_issuer_name(cert, issuer.map { X509_get_subject_name($0) } ?? name), "X509_set_issuer_name")
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer ?? cert, cert, nil, nil, 0)
        for (nid, value) in extensions + [(NID_subject_key_identifier, "hash")] {
            try addExtension(nid, value)
        }
        if issuer != nil { try addExtension(NID_authority_key_identifier, "keyid:always") }
        func addExtension(_ nid: Int32, _ value: String) throws(OpenSSLError) {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else { throw OpenSSLError("X509V3_EXT_conf_nid \(value)") }
            defer { X509_EXTENSION_free(ext) }
            try OpenSSLError.check(X509_add_ext(cert, ext, -1), "X509_add_ext \(value)")
        }
        guard X509_sign(cert, signer.pkey, EVP_sha256()) > 0 else { throw OpenSSLError("X509_sign") }
        return try writingBIO({ PEM_write_bio_X509($0, cert) }, "PEM_write_bio_X509")
    }
}

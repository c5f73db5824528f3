import COpenSSL
import Foundation

/// A TLS client configuration: which CAs to trust, ALPN `h2`, and optionally a client certificate.
public final class TLSClientContext: @unchecked Sendable {
    let ctx: OpaquePointer

    /// A client certificate: PEM files, or a PKCS#12 bundle.
    public enum Identity: Sendable {
        case pem(certificateFile: String, keyFile: String?, password: String?)
        case pkcs12(file: String, password: String?)
    }

    /// - Parameters:
    ///   - caFile: PEM CAs to trust instead of the system's.
    ///   - identity: a client certificate to present.
    /// - Throws: ``OpenSSLError`` when a file is missing, unreadable or the key does not match.
    public init(caFile: String?, identity: Identity?) throws(OpenSSLError) {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw OpenSSLError("SSL_CTX_new") }
        self.ctx = ctx
        try OpenSSLError.check(Int32(COpenSSL_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)), "cannot require TLS 1.2")
        // These two return the options now in force, not a status: nothing to check.
        _ = COpenSSL_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS))
        // Read whole socket buffers, not one record header and body at a time (two system calls a record).
        _ = COpenSSL_SSL_CTX_set_read_ahead(ctx, 1)
        if let caFile {
            try OpenSSLError.check(SSL_CTX_load_verify_locations(ctx, caFile, nil), "cannot load the CA file \(caFile)")
        } else {
            try OpenSSLError.check(SSL_CTX_set_default_verify_paths(ctx), "cannot load the system's CA certificates")
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        let h2: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        guard SSL_CTX_set_alpn_protos(ctx, h2, UInt32(h2.count)) == 0 else { throw OpenSSLError("SSL_CTX_set_alpn_protos") }
        switch identity {
        case .pem(let certificateFile, let keyFile, let password)?: try usePEM(certificateFile, keyFile ?? certificateFile, password)
        case .pkcs12(let file, let password)?: try usePKCS12(file, password)
        case nil: break
        }
    }

    deinit { SSL_CTX_free(ctx) }

    /// Starts a client-side TLS session on a connecting, non-blocking socket; the certificate
    /// must name `host` (a DNS name or an IP literal), which also goes out as SNI when a name.
    ///
    /// - Throws: ``OpenSSLError`` when the name to check cannot be set: the connection must not go
    ///   ahead with the chain checked but not the name.
    public func session(socket: Int32, host: String) throws(OpenSSLError) -> TLSSession {
        guard let ssl = SSL_new(ctx) else { throw OpenSSLError("SSL_new") }
        let session = TLSSession(ssl)  // frees `ssl` if a check below throws
        try OpenSSLError.check(SSL_set_fd(ssl, socket), "SSL_set_fd")
        SSL_set_connect_state(ssl)
        if Self.isIPAddress(host) {
            try OpenSSLError.check(X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host), "cannot check the certificate against the address \(host)")
        } else {
            try OpenSSLError.check(Int32(COpenSSL_SSL_set_tlsext_host_name(ssl, host)), "cannot send the server name \(host)")
            try OpenSSLError.check(SSL_set1_host(ssl, host), "cannot check the certificate against the name \(host)")
        }
        return session
    }

    /// Whether `host` is an IPv4 or IPv6 literal as `inet_pton` reads it (so `10.1` is a name, not an address).
    static func isIPAddress(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    private func usePEM(_ certificateFile: String, _ keyFile: String, _ password: String?) throws(OpenSSLError) {
        try OpenSSLError.check(SSL_CTX_use_certificate_chain_file(ctx, certificateFile), "cannot load the client certificate \(certificateFile)")
        // The callback hands over the configured password, or none: OpenSSL must never ask on the terminal.
        SSL_CTX_set_default_passwd_cb(ctx, passphraseCallback)
        defer { SSL_CTX_set_default_passwd_cb_userdata(ctx, nil) }
        try withPassphrase(password) { (user) throws(OpenSSLError) in
            SSL_CTX_set_default_passwd_cb_userdata(ctx, user)
            let problem = password == nil ? " (it may be encrypted: give its password)" : " (wrong password?)"
            try OpenSSLError.check(SSL_CTX_use_PrivateKey_file(ctx, keyFile, SSL_FILETYPE_PEM), "cannot load the client key \(keyFile)\(problem)")
        }
        try OpenSSLError.check(SSL_CTX_check_private_key(ctx), "the client key \(keyFile) does not match the certificate")
    }

    private func usePKCS12(_ file: String, _ password: String?) throws(OpenSSLError) {
        guard let data = FileManager.default.contents(atPath: file) else { throw OpenSSLError("cannot read the PKCS#12 file \(file)") }
        let bundle: OpaquePointer? = data.withUnsafeBytes { raw in
            var cursor: UnsafePointer<UInt8>? = raw.bindMemory(to: UInt8.self).baseAddress
            return d2i_PKCS12(nil, &cursor, raw.count)
        }
        guard let bundle else { throw OpenSSLError("\(file) is not a PKCS#12 file") }
        defer { PKCS12_free(bundle) }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var chain: OpaquePointer?
        try OpenSSLError.check(PKCS12_parse(bundle, password ?? "", &key, &certificate, &chain), "cannot open \(file) (wrong password?)")
        defer {
            EVP_PKEY_free(key)
            X509_free(certificate)
        }
        try OpenSSLError.check(SSL_CTX_use_certificate(ctx, certificate), "cannot use the certificate in \(file)")
        try OpenSSLError.check(SSL_CTX_use_PrivateKey(ctx, key), "cannot use the key in \(file)")
        if let chain {
            while let extra = OPENSSL_sk_shift(chain) {
                // On success the context owns the certificate.
                try OpenSSLError.check(Int32(COpenSSL_SSL_CTX_add_extra_chain_cert(ctx, OpaquePointer(extra))), "cannot use the chain in \(file)")
            }
            OPENSSL_sk_free(chain)
        }
    }
}

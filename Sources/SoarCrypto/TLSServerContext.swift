import COpenSSL

/// A TLS server configuration: certificate, key, the ALPN protocol it insists on, and optionally
/// a CA that client certificates are checked against.
public final class TLSServerContext: @unchecked Sendable {
    let ctx: OpaquePointer

    /// - Parameters:
    ///   - certificateFile: PEM chain, leaf first.
    ///   - keyFile: the leaf's PEM private key.
    ///   - clientCAFile: when set, clients may present a certificate, which must chain to this CA.
    /// - Throws: ``OpenSSLError`` when a file is missing or the key does not match.
    public init(certificateFile: String, keyFile: String, clientCAFile: String? = nil) throws(OpenSSLError) {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw OpenSSLError("SSL_CTX_new") }
        self.ctx = ctx
        try OpenSSLError.check(Int32(COpenSSL_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)), "cannot require TLS 1.2")
        // Returns the mode now in force, not a status.
        _ = COpenSSL_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        try OpenSSLError.check(SSL_CTX_use_certificate_chain_file(ctx, certificateFile), "cannot load the certificate \(certificateFile)")
        try OpenSSLError.check(SSL_CTX_use_PrivateKey_file(ctx, keyFile, SSL_FILETYPE_PEM), "cannot load the key \(keyFile)")
        try OpenSSLError.check(SSL_CTX_check_private_key(ctx), "the key \(keyFile) does not match the certificate")
        if let clientCAFile {
            try OpenSSLError.check(SSL_CTX_load_verify_locations(ctx, clientCAFile, nil), "cannot load the client CA \(clientCAFile)")
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        }
        SSL_CTX_set_alpn_select_cb(ctx, selectH2, nil)
    }

    deinit { SSL_CTX_free(ctx) }

    /// Starts a server-side TLS session on a connected, non-blocking socket.
    public func session(socket: Int32) throws(OpenSSLError) -> TLSSession {
        guard let ssl = SSL_new(ctx) else { throw OpenSSLError("SSL_new") }
        let session = TLSSession(ssl)  // frees `ssl` if the check below throws
        try OpenSSLError.check(SSL_set_fd(ssl, socket), "SSL_set_fd")
        SSL_set_accept_state(ssl)
        return session
    }
}

/// ALPN: choose `h2` or fail the handshake with `no_application_protocol`, as APNs does.
func selectH2(
    ssl: OpaquePointer?, out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, outLength: UnsafeMutablePointer<UInt8>?,
    offered: UnsafePointer<UInt8>?, offeredLength: UInt32, arg: UnsafeMutableRawPointer?
) -> Int32 {
    guard let offered, let out, let outLength else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    var index = 0
    while index < Int(offeredLength) {
        let length = Int(offered[index])
        if length == 2, index + 2 < Int(offeredLength), offered[index + 1] == UInt8(ascii: "h"), offered[index + 2] == UInt8(ascii: "2") {
            out.pointee = offered + index + 1
            outLength.pointee = 2
            return SSL_TLSEXT_ERR_OK
        }
        index += 1 + length
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL
}

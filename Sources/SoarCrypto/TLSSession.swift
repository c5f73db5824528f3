import COpenSSL

/// One TLS connection, server or client side, over a non-blocking socket.
///
/// Not thread-safe: owned by the event loop that drives the socket.
public final class TLSSession {
    /// What a handshake, read or write step came to.
    public enum Step: Equatable {
        /// Done; for read and write, how many bytes moved.
        case done(Int)
        case wantRead
        case wantWrite
        /// The peer closed the session cleanly.
        case closed
        case failed(String)
    }

    let ssl: OpaquePointer

    init(_ ssl: OpaquePointer) { self.ssl = ssl }

    deinit { SSL_free(ssl) }

    public func handshake() -> Step {
        let result = SSL_do_handshake(ssl)
        return result == 1 ? .done(0) : step(for: result)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Step {
        let result = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        return result > 0 ? .done(Int(result)) : step(for: result)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) -> Step {
        guard bytes.count > 0 else { return .done(0) }
        let result = SSL_write(ssl, bytes.baseAddress, Int32(bytes.count))
        return result > 0 ? .done(Int(result)) : step(for: result)
    }

    /// Sends close_notify; the caller closes the socket.
    public func shutdown() { SSL_shutdown(ssl) }

    /// The protocol ALPN agreed on, `h2` or nil.
    public var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The subject common name of a client certificate that verified against the client CA.
    public var verifiedClientName: String? {
        guard let cert = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(cert) }
        guard SSL_get_verify_result(ssl) == X509_V_OK else { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        let length = X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, &buffer, Int32(buffer.count))
        guard length >= 0 else { return "" }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func step(for result: Int32) -> Step {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        default:
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                ERR_clear_error()
                return .failed("certificate verification failed: \(String(cString: X509_verify_cert_error_string(verify)))")
            }
            return .failed(OpenSSLError("TLS").description)
        }
    }
}

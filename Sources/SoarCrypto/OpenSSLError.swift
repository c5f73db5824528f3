import COpenSSL

/// A failed OpenSSL call, with OpenSSL's own explanation when it left one.
public struct OpenSSLError: Error, Sendable, CustomStringConvertible {
    public let description: String

    /// OpenSSL's reason in words ("unsupported", "bad decrypt"), without its internal codes.
    public init(_ what: String) {
        var detail = ""
        var code = ERR_get_error()
        while code != 0 {
            if let reason = ERR_reason_error_string(code) { detail = String(cString: reason) }
            code = ERR_get_error()
        }
        description = detail.isEmpty || what.contains(detail) ? what : "\(what) (OpenSSL: \(detail))"
    }

    /// Turns OpenSSL's 1-is-success convention into a throw.
    static func check(_ result: Int32, _ what: @autoclosure () -> String) throws(OpenSSLError) {
        guard result == 1 else { throw OpenSSLError(what()) }
    }
}

/// Reads everything written to a memory BIO.
func drain(_ bio: OpaquePointer) -> String {
    var pointer: UnsafeMutablePointer<CChar>?
    let length = COpenSSL_BIO_get_mem_data(bio, &pointer)
    guard let pointer, length > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: Int(length)), as: UTF8.self)
}

/// Runs `body` with a read-only memory BIO over the text.
func withBIO<T>(_ text: String, _ body: (OpaquePointer) throws(OpenSSLError) -> T) throws(OpenSSLError) -> T {
    let bytes = Array(text.utf8)
    guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError("BIO_new") }
    defer { BIO_free(bio) }
    let written = bytes.withUnsafeBytes { raw in BIO_write(bio, raw.baseAddress, Int32(raw.count)) }
    guard written == bytes.count else { throw OpenSSLError("BIO_write") }
    return try body(bio)
}

/// Runs `body` with a writable memory BIO and returns what it wrote.
func writingBIO(_ body: (OpaquePointer) -> Int32, _ what: String) throws(OpenSSLError) -> String {
    guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError("BIO_new") }
    defer { BIO_free(bio) }
    try OpenSSLError.check(body(bio), what)
    return drain(bio)
}

import COpenSSL

#if canImport(Glibc)
    import Glibc
#endif

/// OpenSSL's passphrase callback for encrypted keys: hands over the configured passphrase, or
/// none, so OpenSSL never falls back to asking on the terminal (its default without a callback).
///
/// `user` is a C string made by ``withPassphrase(_:_:)``, or nil for no passphrase.
func passphraseCallback(buffer: UnsafeMutablePointer<CChar>?, size: Int32, writing: Int32, user: UnsafeMutableRawPointer?) -> Int32 {
    guard let buffer, let user else { return -1 }
    let passphrase = user.assumingMemoryBound(to: CChar.self)
    let length = strlen(passphrase)
    guard length < Int(size) else { return -1 }
    buffer.update(from: passphrase, count: length)
    return Int32(length)
}

/// Runs `body` with a passphrase as the callback's user data (nil: none).
func withPassphrase<T, E: Error>(_ passphrase: String?, _ body: (UnsafeMutableRawPointer?) throws(E) -> T) throws(E) -> T {
    guard let passphrase else { return try body(nil) }
    let copy = strdup(passphrase)
    defer {
        if let copy {
            memset(copy, 0, strlen(copy))  // the secret does not outlive its use in memory we own
            free(copy)
        }
    }
    return try body(UnsafeMutableRawPointer(copy))
}

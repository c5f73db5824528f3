import COpenSSL

/// OpenSSL set up for a process that exits while other threads may still be inside it.
public enum OpenSSLProcess {
    /// Tells OpenSSL not to free its global state in an `atexit` handler. Without this, `exit`
    /// frees it while a connection or resolver thread is still freeing its own OpenSSL objects,
    /// and the process aborts with a double free instead of its exit code. Call it first thing in
    /// `main`, before anything else touches OpenSSL (the first initialization decides).
    public static func keepStateUntilExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps a write to a socket the peer has closed from ending the process.
///
/// Such a write raises SIGPIPE, whose default action kills the process, and OpenSSL writes with
/// plain `write`, which cannot ask for MSG_NOSIGNAL. An event loop calls this first on its own
/// thread: SIGPIPE is sent to the writing thread, and blocked there it is never delivered, so the
/// write just fails with EPIPE. Other threads and the process's handlers are left as they were.
public func blockBrokenPipeSignal() {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &signals, nil)
}

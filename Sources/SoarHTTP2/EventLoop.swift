// What an HTTP/2 event loop's thread needs around its sockets.

import CLinux

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

/// Milliseconds on the monotonic clock, for event loops' timers.
public func monotonicMilliseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
}

/// Registers `fd` with an epoll set (or changes its registration): always for reading, and for
/// writing while output waits.
public func epollWatch(_ epoll: Int32, _ fd: Int32, writable: Bool, add: Bool) {
    var event = epoll_event()
    event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
    event.data.fd = fd
    epoll_ctl(epoll, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
}

/// Sends small writes at once (no Nagle delay): each loop turn already writes its frames in one go.
public func setNoDelay(_ fd: Int32) {
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
}

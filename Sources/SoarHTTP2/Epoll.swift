import CLinux

/// Registers `fd` with an epoll set (or changes its registration): always for reading, and for
/// writing while output waits.
public func epollWatch(_ epoll: Int32, _ fd: Int32, writable: Bool, add: Bool) {
    var event = epoll_event()
    event.events = EPOLLIN.rawValue | (writable ? EPOLLOUT.rawValue : 0)
    event.data.fd = fd
    epoll_ctl(epoll, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event)
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Opening the transport's TCP connections.
enum ClientSocket {
    /// Resolves `host` and starts a non-blocking connect to its first address; the socket becomes
    /// writable once connected (or failed: read SO_ERROR).
    static func connect(host: String, port: UInt16) throws(APNsConfigurationError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG  // no IPv6 addresses on a host without IPv6
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else { throw .init("cannot resolve \(host): \(String(cString: gai_strerror(status)))") }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 || errno == EINPROGRESS { return fd }
            lastError = String(cString: strerror(errno))
            Glibc.close(fd)
        }
        throw .init("cannot connect to \(host):\(port): \(lastError)")
    }
}

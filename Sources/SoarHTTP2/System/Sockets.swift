import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// One address a host resolved to, as `connect` and `bind` take it.
public struct ResolvedAddress: Sendable, Equatable {
    public let family: Int32
    /// The `sockaddr_in` or `sockaddr_in6` bytes.
    public let bytes: [UInt8]

    public init(family: Int32, bytes: [UInt8]) {
        self.family = family
        self.bytes = bytes
    }
}

/// The TCP socket calls the HTTP/2 client and server make, each result checked.
public enum Sockets {
    /// The addresses of `host` (a name or an IP literal), in the resolver's order, of the address
    /// families this machine has.
    ///
    /// - Throws: the resolver's explanation when there is none.
    public static func resolve(host: String, port: UInt16, numericOnly: Bool = false) throws(ResolveError) -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (numericOnly ? AI_NUMERICHOST : AI_ADDRCONFIG)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else { throw ResolveError("cannot resolve \(host): \(String(cString: gai_strerror(status)))") }
        defer { freeaddrinfo(list) }
        var addresses: [ResolvedAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let info = entry {
            entry = info.pointee.ai_next
            guard let address = info.pointee.ai_addr else { continue }
            let bytes = UnsafeRawBufferPointer(start: address, count: Int(info.pointee.ai_addrlen))
            addresses.append(ResolvedAddress(family: info.pointee.ai_family, bytes: Array(bytes)))
        }
        guard !addresses.isEmpty else { throw ResolveError("\(host) has no address") }
        return addresses
    }

    /// Starts a non-blocking connect; the socket becomes writable once connected or failed (then
    /// ``pendingError(_:)`` says why).
    public static func connect(_ address: ResolvedAddress) throws(SystemError) -> Int32 {
        let fd = try systemCall("socket") { socket(address.family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0) }
        do throws(SystemError) {
            try setNoDelay(fd)
            let started = address.bytes.withUnsafeBytes { raw in
                Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            if started != 0 && errno != EINPROGRESS { throw SystemError("connect") }
        } catch {
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    /// Why a non-blocking connect failed, or nil once it has succeeded.
    public static func pendingError(_ fd: Int32) -> SystemError? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { return SystemError("getsockopt") }
        return code == 0 ? nil : SystemError("connect", code: code)
    }

    /// A non-blocking listening TCP socket on an IPv4 or IPv6 literal (port 0 picks a free one).
    public static func listen(host: String, port: UInt16) throws(SystemError) -> Int32 {
        guard let address = try? resolve(host: host, port: port, numericOnly: true).first else {
            throw SystemError("getaddrinfo \(host)", code: EINVAL)
        }
        let fd = try systemCall("socket") { socket(address.family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0) }
        do throws(SystemError) {
            var one: Int32 = 1
            try systemCall("setsockopt SO_REUSEADDR") { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) }
            try systemCall("bind") {
                address.bytes.withUnsafeBytes { raw in bind(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count)) }
            }
            try systemCall("listen") { Glibc.listen(fd, 1024) }
        } catch {
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    /// The next waiting connection, non-blocking and close-on-exec; nil when none waits.
    public static func accept(_ listener: Int32) throws(SystemError) -> Int32? {
        do {
            return try systemCall("accept4") { CLinux_accept(listener) }
        } catch where error.wouldBlock || error.code == ECONNABORTED {
            return nil
        }
    }

    /// The port a socket is bound to.
    public static func localPort(_ fd: Int32) throws(SystemError) -> UInt16 {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        try systemCall("getsockname") {
            withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        }
        let family = address.ss_family
        return withUnsafePointer(to: &address) { pointer in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    /// Sends small writes at once (no Nagle delay): each loop turn already writes its frames in one go.
    public static func setNoDelay(_ fd: Int32) throws(SystemError) {
        var one: Int32 = 1
        try systemCall("setsockopt TCP_NODELAY") { setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size)) }
    }
}

/// Why a host name gave no address.
public struct ResolveError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

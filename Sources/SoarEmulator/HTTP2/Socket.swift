import Foundation
import SoarHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The few BSD-socket calls the server makes.
enum Socket {
    /// A non-blocking listening TCP socket on an IPv4 or IPv6 literal.
    static func listen(host: String, port: UInt16) throws(EmulatorError) -> Int32 {
        guard let address = SocketAddress(host: host, port: port) else { throw EmulatorError("not an IP address: \(host)") }
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw EmulatorError("cannot create a socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockaddr { bind(fd, $0, $1) }
        guard bound == 0, Glibc.listen(fd, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw EmulatorError("cannot listen on \(host):\(port): \(reason)")
        }
        return fd
    }

    static func localPort(_ fd: Int32) -> UInt16 {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let family = address.ss_family
        return withUnsafePointer(to: &address) { pointer in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }
}

/// Why the emulator could not start or was misconfigured.
public struct EmulatorError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

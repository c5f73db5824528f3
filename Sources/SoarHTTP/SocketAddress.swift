import Foundation

/// An IPv4 or IPv6 literal and a port, as the `sockaddr` that bind and libmicrohttpd take.
public struct SocketAddress: Sendable {
    public let host: String
    public let port: UInt16
    public let isIPv6: Bool
    private let storage: sockaddr_storage

    /// Nil when `host` is not an IP literal (names are not resolved: servers bind loopback).
    public init?(host: String, port: UInt16) {
        var storage = sockaddr_storage()
        let parsed = withUnsafeMutablePointer(to: &storage) { pointer -> Bool in
            if host.contains(":") {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    address.pointee.sin6_family = sa_family_t(AF_INET6)
                    address.pointee.sin6_port = port.bigEndian
                    return inet_pton(AF_INET6, host, &address.pointee.sin6_addr) == 1
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                address.pointee.sin_family = sa_family_t(AF_INET)
                address.pointee.sin_port = port.bigEndian
                return inet_pton(AF_INET, host, &address.pointee.sin_addr) == 1
            }
        }
        guard parsed else { return nil }
        self.host = host
        self.port = port
        self.isIPv6 = host.contains(":")
        self.storage = storage
    }

    /// The address family, for `socket()`.
    public var family: Int32 { isIPv6 ? AF_INET6 : AF_INET }

    /// Calls `body` with the address and its length.
    public func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var copy = storage
        let length = socklen_t(isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &copy) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }
}

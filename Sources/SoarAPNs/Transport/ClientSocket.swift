import Foundation
import SoarHTTP2

#if canImport(Glibc)
    import Glibc
#endif

/// One address a host name resolved to, as `connect` takes it.
struct ResolvedAddress: Sendable, Equatable {
    let family: Int32
    /// The `sockaddr_in` or `sockaddr_in6` bytes.
    let bytes: [UInt8]
}

/// Resolving and opening the transport's TCP connections.
enum ClientSocket {
    /// The addresses of `host` (a name or an IP literal), in the resolver's order, of the address
    /// families this machine has.
    static func resolve(host: String, port: UInt16) throws(APNsConfigurationError) -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else { throw .init("cannot resolve \(host): \(String(cString: gai_strerror(status)))") }
        defer { freeaddrinfo(list) }
        var addresses: [ResolvedAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let info = entry {
            entry = info.pointee.ai_next
            guard let address = info.pointee.ai_addr else { continue }
            let bytes = UnsafeRawBufferPointer(start: address, count: Int(info.pointee.ai_addrlen))
            addresses.append(ResolvedAddress(family: info.pointee.ai_family, bytes: Array(bytes)))
        }
        guard !addresses.isEmpty else { throw .init("\(host) has no address") }
        return addresses
    }

    /// Starts a non-blocking connect; the socket becomes writable once connected or failed (then
    /// SO_ERROR says why). Returns the socket, or why not even that worked.
    static func connect(_ address: ResolvedAddress) -> Result<Int32, APNsConfigurationError> {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.init("cannot create a socket: \(String(cString: strerror(errno)))")) }
        setNoDelay(fd)
        let started = address.bytes.withUnsafeBytes { raw in
            Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        guard started == 0 || errno == EINPROGRESS else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            return .failure(.init(reason))
        }
        return .success(fd)
    }
}

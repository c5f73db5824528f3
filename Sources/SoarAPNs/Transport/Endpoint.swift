/// Where the transport connects, from a base URL such as `https://api.push.apple.com:443`.
struct Endpoint: Sendable, Equatable {
    var tls: Bool
    var host: String
    var port: UInt16
    /// `host:port` as `:authority` carries it, IPv6 literals in brackets.
    var authority: String

    /// - Returns: nil when the URL is not `https://` or `http://` with a host and an optional port.
    init?(baseURL: String) {
        let rest: Substring
        if baseURL.hasPrefix("https://") {
            tls = true
            rest = baseURL.dropFirst(8)
        } else if baseURL.hasPrefix("http://") {
            tls = false
            rest = baseURL.dropFirst(7)
        } else {
            return nil
        }
        let hostPort = rest.prefix { $0 != "/" }
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { return nil }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = String(hostPort)
        }
        guard !host.isEmpty else { return nil }
        if let portText {
            guard let value = UInt16(portText), value > 0 else { return nil }
            port = value
        } else {
            port = tls ? 443 : 80
        }
        authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

import Foundation

/// Turns a link, path or `target_url` into path segments and query items.
enum RoutePath {
    /// Splits `soar:///notifications`, `soar://notifications`, `https://host/brands/1`,
    /// `/brands/1?x=y` or `brands/1`; nil for foreign hosts, unknown schemes and malformed text.
    static func split(_ text: String, schemes: Set<String>, hosts: Set<String>) -> (path: [String], query: [String: String])? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let components = URLComponents(string: trimmed) else { return nil }
        var segments: [String] = []
        if let scheme = components.scheme?.lowercased() {
            if scheme == "https" || scheme == "http" {
                guard let host = components.host?.lowercased(), hosts.contains(host) else { return nil }
            } else {
                guard schemes.contains(scheme) else { return nil }
                if let host = components.host, !host.isEmpty { segments.append(host) }
            }
        }
        for part in components.percentEncodedPath.split(separator: "/") {
            guard let decoded = String(part).removingPercentEncoding else { return nil }
            segments.append(decoded)
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        return (segments, query)
    }

    /// Percent-encodes a parameter for use as one path segment.
    static func escape(_ value: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?&=#")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

import SoarHTTP

/// The route table: method and path pattern (`/rest/v1/{table}`) to a handler.
struct Router: Sendable {
    typealias Handler = @Sendable (inout Exchange) throws(ServerError) -> HTTPResponse

    struct Route: Sendable {
        let methods: Set<String>
        let segments: [Substring]
        /// The pattern, used as the metrics and log label (never the raw path).
        let label: String
        let handler: Handler
    }

    private(set) var routes: [Route] = []

    mutating func add(_ methods: Set<String>, _ pattern: String, _ handler: @escaping Handler) {
        routes.append(Route(methods: methods, segments: pattern.split(separator: "/"), label: pattern, handler: handler))
    }

    /// What follows the first `count` segments of `path` and the slash after them, as written.
    static func remainder(of path: String, after count: Int) -> String {
        var rest = Substring(path)
        for _ in 0..<count {
            rest = rest.drop { $0 == "/" }
            rest = rest.drop { $0 != "/" }
        }
        return String(rest.hasPrefix("/") ? rest.dropFirst() : rest)
    }

    /// The route for a path, its `{name}` parameters, and whether only the method was wrong. A
    /// last segment `{name*}` takes the rest of the path, slashes and all (a storage object's name).
    func match(_ method: String, _ path: String) -> (route: Route?, parameters: [String: String], methodAllowed: Bool) {
        let parts = path.split(separator: "/")
        var pathMatched = false
        for route in routes {
            let rest = route.segments.last.map { $0.hasSuffix("*}") } ?? false
            guard rest ? parts.count >= route.segments.count : parts.count == route.segments.count else { continue }
            var parameters: [String: String] = [:]
            var matched = true
            for (index, (pattern, part)) in zip(route.segments, parts).enumerated() {
                if rest, index == route.segments.count - 1 {
                    // As written, empty parts and all: a storage key's `//` is the key's to refuse.
                    parameters[String(pattern.dropFirst().dropLast(2))] = Self.remainder(of: path, after: index)
                } else if pattern.hasPrefix("{") {
                    parameters[String(pattern.dropFirst().dropLast())] = String(part)
                } else if pattern != part {
                    matched = false
                    break
                }
            }
            guard matched else { continue }
            pathMatched = true
            let methodMatches = route.methods.contains(method) || (method == "HEAD" && route.methods.contains("GET"))
            if methodMatches { return (route, parameters, true) }
        }
        return (nil, [:], !pathMatched)
    }
}

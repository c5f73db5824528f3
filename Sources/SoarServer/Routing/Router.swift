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

    /// The route for a path, its `{name}` parameters, and whether only the method was wrong.
    func match(_ method: String, _ path: String) -> (route: Route?, parameters: [String: String], methodAllowed: Bool) {
        let parts = path.split(separator: "/")
        var pathMatched = false
        for route in routes where route.segments.count == parts.count {
            var parameters: [String: String] = [:]
            var matched = true
            for (pattern, part) in zip(route.segments, parts) {
                if pattern.hasPrefix("{") {
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

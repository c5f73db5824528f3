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
        /// Each segment's parameter name, nil for a literal one (worked out once, not per request).
        let names: [String?]
        /// The last segment is `{name*}`: it takes the rest of the path.
        let takesRest: Bool

        init(methods: Set<String>, pattern: String, handler: @escaping Handler) {
            self.methods = methods
            let segments = pattern.split(separator: "/")
            let takesRest = segments.last?.hasSuffix("*}") ?? false
            self.segments = segments
            self.takesRest = takesRest
            label = pattern
            self.handler = handler
            names = segments.enumerated().map { index, segment in
                guard segment.hasPrefix("{") else { return nil }
                return String(segment.dropFirst().dropLast(takesRest && index == segments.count - 1 ? 2 : 1))
            }
        }
    }

    private(set) var routes: [Route] = []
    /// Routes by their first segment, in the order they were added (those that begin with a
    /// parameter under ""): a request looks only at those its path could match.
    private var byFirst: [Substring: [Int]] = [:]

    mutating func add(_ methods: Set<String>, _ pattern: String, _ handler: @escaping Handler) {
        let route = Route(methods: methods, pattern: pattern, handler: handler)
        let first = route.names.first.map { $0 == nil ? route.segments[0] : "" } ?? ""
        byFirst[first, default: []].append(routes.count)
        routes.append(route)
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
        // Split as bytes: the slash is ASCII, so each part is whole characters.
        let parts = path.utf8.split(separator: UInt8(ascii: "/")).map(Substring.init)
        let literal = parts.first.flatMap { byFirst[$0] } ?? []
        let open = byFirst[""] ?? []
        // The two lists merged in the order the routes were added: the first added wins.
        let candidates = open.isEmpty ? literal : (literal + open).sorted()
        var pathMatched = false
        for index in candidates {
            let route = routes[index]
            guard route.takesRest ? parts.count >= route.segments.count : parts.count == route.segments.count else { continue }
            var parameters: [String: String] = [:]
            var matched = true
            for (position, (pattern, part)) in zip(route.segments, parts).enumerated() {
                if let name = route.names[position] {
                    // As written, empty parts and all: a storage key's `//` is the key's to refuse.
                    parameters[name] = route.takesRest && position == route.segments.count - 1 ? Self.remainder(of: path, after: position) : String(part)
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

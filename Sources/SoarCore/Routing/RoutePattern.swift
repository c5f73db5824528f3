/// One row of a route table: a path pattern and the route it names.
///
/// Pattern segments are literals, `:name` (required), `:name?` (optional, last) or `:name=default`
/// (optional, last; omitted from built paths when it has its default). `query` names the query
/// parameters the route reads; `parameters` are constants the row sets (`/support/new` is
/// `support` with `compose: true`).
public struct RoutePattern: Sendable, Equatable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String, optional: Bool, default: String?)
    }

    public let name: String
    public let path: String
    public let query: [String]
    public let parameters: [String: String]
    let segments: [Segment]

    /// - Throws: ``RouteTableError`` for an empty name, an optional segment before the end, a
    ///   parameter named twice.
    public init(_ name: String, _ path: String, query: [String] = [], parameters: [String: String] = [:]) throws(RouteTableError) {
        guard !name.isEmpty else { throw RouteTableError("a route needs a name (path \(path))") }
        guard path.hasPrefix("/") else { throw RouteTableError("\(name): the path \"\(path)\" must start with /") }
        var segments: [Segment] = []
        var names = Set(query)
        for part in path.split(separator: "/") {
            if let last = segments.last, case .parameter(_, true, _) = last {
                throw RouteTableError("\(name): in \(path), only the last segment may be optional")
            }
            guard part.hasPrefix(":") else {
                segments.append(.literal(part.lowercased()))
                continue
            }
            var spec = Substring(part.dropFirst())
            var segment: Segment
            if spec.hasSuffix("?") {
                spec.removeLast()
                segment = .parameter(String(spec), optional: true, default: nil)
            } else if let equals = spec.firstIndex(of: "=") {
                segment = .parameter(String(spec[..<equals]), optional: true, default: String(spec[spec.index(after: equals)...]))
                spec = spec[..<equals]
            } else {
                segment = .parameter(String(spec), optional: false, default: nil)
            }
            guard !spec.isEmpty, names.insert(String(spec)).inserted else {
                throw RouteTableError("\(name): in \(path), every parameter needs a name of its own")
            }
            segments.append(segment)
        }
        self.name = name
        self.path = path
        self.query = query
        self.parameters = parameters
        self.segments = segments
    }

    /// The route for path segments and query items; nil when the pattern does not fit.
    func match(_ path: [String], query items: [String: String]) -> AppRoute? {
        var values = parameters
        var index = 0
        for segment in segments {
            switch segment {
            case .literal(let text):
                guard index < path.count, path[index].lowercased() == text else { return nil }
            case .parameter(let key, let optional, let fallback):
                guard index < path.count, !path[index].isEmpty else {
                    guard optional else { return nil }
                    if let fallback { values[key] = fallback }
                    continue
                }
                values[key] = path[index]
            }
            index += 1
        }
        guard index == path.count else { return nil }
        for key in query { if let value = items[key] { values[key] = value } }
        return AppRoute(name, values)
    }

    /// The path for `route` when this row can spell it: same name, its constants, every required
    /// parameter, and no parameter it has no place for.
    func build(_ route: AppRoute) -> String? {
        guard route.name == name, parameters.allSatisfy({ route.parameters[$0.key] == $0.value }) else { return nil }
        var parts: [String] = []
        var used = Set(parameters.keys)
        for segment in segments {
            switch segment {
            case .literal(let text): parts.append(text)
            case .parameter(let key, let optional, let fallback):
                used.insert(key)
                guard let value = route.parameters[key] else {
                    if optional { continue } else { return nil }
                }
                if value != fallback { parts.append(RoutePath.escape(value)) }
            }
        }
        let queryText = query.compactMap { key in
            used.insert(key)
            return route.parameters[key].map { "\(key)=\(RoutePath.escape($0))" }
        }
        guard Set(route.parameters.keys).isSubset(of: used) else { return nil }
        return "/" + parts.joined(separator: "/") + (queryText.isEmpty ? "" : "?" + queryText.joined(separator: "&"))
    }

    /// The parameter names in pattern order, then the query's.
    var parameterOrder: [String] {
        segments.compactMap { if case .parameter(let key, _, _) = $0 { key } else { nil } } + query
    }
}

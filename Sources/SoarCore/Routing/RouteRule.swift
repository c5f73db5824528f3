/// One row of the route table: a path pattern and the two directions between it and a ``PushRoute``.
///
/// Pattern segments are literals, `:name` (required), `:name?` (optional, last) or `:name=default`
/// (optional, omitted from built paths when it has its default). `query` names the query
/// parameters a rule reads.
struct RouteRule: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String, optional: Bool, default: String?)
    }

    let name: String
    let segments: [Segment]
    let query: [String]
    let make: @Sendable (RouteCaptures) -> PushRoute?
    /// The route's parameters, or nil when the rule does not describe this route. Absent for
    /// alternate spellings that only parse.
    let parameters: (@Sendable (PushRoute) -> [String: String?]?)?

    init(
        _ name: String, _ pattern: String, query: [String] = [],
        _ make: @escaping @Sendable (RouteCaptures) -> PushRoute?,
        _ parameters: (@Sendable (PushRoute) -> [String: String?]?)? = nil
    ) {
        self.name = name
        self.query = query
        self.make = make
        self.parameters = parameters
        self.segments = pattern.split(separator: "/").map { part in
            guard part.hasPrefix(":") else { return .literal(part.lowercased()) }
            var spec = part.dropFirst()
            if spec.hasSuffix("?") {
                spec.removeLast()
                return .parameter(String(spec), optional: true, default: nil)
            }
            if let eq = spec.firstIndex(of: "=") {
                return .parameter(String(spec[..<eq]), optional: true, default: String(spec[spec.index(after: eq)...]))
            }
            return .parameter(String(spec), optional: false, default: nil)
        }
    }

    /// A route without parameters.
    static func fixed(_ name: String, _ pattern: String, _ route: PushRoute) -> RouteRule {
        RouteRule(name, pattern, { _ in route }, { $0 == route ? [:] : nil })
    }

    /// Matches path segments and query items; nil when the pattern does not fit.
    func match(_ path: [String], query items: [String: String]) -> PushRoute? {
        var values: [String: String] = [:]
        var index = 0
        for segment in segments {
            switch segment {
            case .literal(let text):
                guard index < path.count, path[index].lowercased() == text else { return nil }
            case .parameter(let key, let optional, _):
                guard index < path.count, !path[index].isEmpty else {
                    guard optional else { return nil }
                    continue
                }
                values[key] = path[index]
            }
            index += 1
        }
        guard index == path.count else { return nil }
        for key in query { values[key] = items[key] }
        return make(RouteCaptures(values: values))
    }

    /// The path for a route this rule describes, e.g. `/brands/abc123/hub`.
    func path(for route: PushRoute) -> String? {
        guard let parameters = parameters?(route) else { return nil }
        var parts: [String] = []
        for segment in segments {
            switch segment {
            case .literal(let text): parts.append(text)
            case .parameter(let key, _, let fallback):
                if let value = parameters[key] ?? nil, value != fallback { parts.append(RoutePath.escape(value)) }
            }
        }
        let queryText = query.compactMap { key in (parameters[key] ?? nil).map { "\(key)=\(RoutePath.escape($0))" } }
        return "/" + parts.joined(separator: "/") + (queryText.isEmpty ? "" : "?" + queryText.joined(separator: "&"))
    }

    /// `name(key: value, ...)` in pattern order, for logs and the CLI.
    func describe(_ route: PushRoute) -> String? {
        guard let parameters = parameters?(route) else { return nil }
        let keys = segments.compactMap { if case .parameter(let key, _, _) = $0 { key } else { nil } } + query
        let shown = keys.compactMap { key in (parameters[key] ?? nil).map { "\(key): \($0)" } }
        return shown.isEmpty ? name : "\(name)(\(shown.joined(separator: ", ")))"
    }
}

/// The values a rule captured from a path, by parameter name: `$0.publicId`.
@dynamicMemberLookup
struct RouteCaptures: Sendable {
    let values: [String: String]

    subscript(dynamicMember name: String) -> String? { values[name] }

    /// A query flag: `1`, `true` or `yes`.
    func flag(_ name: String) -> Bool {
        ["1", "true", "yes"].contains(values[name]?.lowercased() ?? "")
    }
}

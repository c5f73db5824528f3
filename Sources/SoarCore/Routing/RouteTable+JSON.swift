import Foundation

/// A route table as a file: what `soar init` writes to `supabase/routes.json`, what `soar route`,
/// `soar simulate` and the server read, and what an app may bundle.
///
/// ```json
/// {"schemes": ["myapp"], "hosts": ["example.com"], "payload_keys": ["target_url", "deeplink", "url"],
///  "routes": [{"name": "todo", "path": "/todos/:id"},
///             {"name": "support", "path": "/support/new", "parameters": {"compose": "true"}}]}
/// ```
extension RouteTable {
    /// Reads a table, refusing unknown keys and naming the row of any mistake.
    public init(json data: Data) throws(RouteTableError) {
        let value: JSONValue
        do { value = try JSONValue.read(data) } catch { throw RouteTableError("not JSON: \(error.description)") }
        guard let object = value.objectValue else { throw RouteTableError("a route table is a JSON object") }
        let known: Set<String> = ["schemes", "hosts", "payload_keys", "routes"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw RouteTableError("unknown key \"\(unknown)\" (known: \(known.sorted().joined(separator: ", ")))")
        }
        let schemes = try Self.strings(object["schemes"], "schemes")
        guard !schemes.isEmpty else { throw RouteTableError("\"schemes\" needs at least one URL scheme, e.g. [\"myapp\"]") }
        guard let rows = object["routes"]?.arrayValue, !rows.isEmpty else { throw RouteTableError("\"routes\" needs at least one route") }
        var routes: [RoutePattern] = []
        for (index, row) in rows.enumerated() {
            guard let fields = row.objectValue, let name = fields["name"]?.stringValue, let path = fields["path"]?.stringValue else {
                throw RouteTableError("routes[\(index)] needs a \"name\" and a \"path\"")
            }
            let rowKeys: Set<String> = ["name", "path", "query", "parameters"]
            if let unknown = fields.keys.sorted().first(where: { !rowKeys.contains($0) }) {
                throw RouteTableError("routes[\(index)] (\(name)): unknown key \"\(unknown)\" (known: \(rowKeys.sorted().joined(separator: ", ")))")
            }
            var constants: [String: String] = [:]
            for (key, value) in fields["parameters"]?.objectValue ?? [:] {
                guard let text = value.stringValue else { throw RouteTableError("routes[\(index)] (\(name)): parameter \"\(key)\" must be a string") }
                constants[key] = text
            }
            do {
                routes.append(try RoutePattern(name, path, query: try Self.strings(fields["query"], "routes[\(index)].query"), parameters: constants))
            } catch {
                throw RouteTableError("routes[\(index)]: \(error.description)")
            }
        }
        let keys = object["payload_keys"] == nil ? ["target_url", "deeplink", "url"] : try Self.strings(object["payload_keys"], "payload_keys")
        self.init(schemes: schemes, hosts: try Self.strings(object["hosts"], "hosts"), payloadKeys: keys, routes: routes)
    }

    /// Reads a table from a file.
    public init(file path: String) throws(RouteTableError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw RouteTableError("\(path): \(FileProblem.reason(path))") }
        do { try self.init(json: data) } catch { throw RouteTableError("\(path): \(error.description)") }
    }

    /// The table as a file, rows in order.
    public var json: JSONValue {
        .object([
            "schemes": .array(schemes.map(JSONValue.string)), "hosts": .array(hosts.map(JSONValue.string)),
            "payload_keys": .array(payloadKeys.map(JSONValue.string)),
            "routes": .array(routes.map { row in
                var fields: [String: JSONValue] = ["name": .string(row.name), "path": .string(row.path)]
                if !row.query.isEmpty { fields["query"] = .array(row.query.map(JSONValue.string)) }
                if !row.parameters.isEmpty { fields["parameters"] = .object(row.parameters.mapValues(JSONValue.string)) }
                return .object(fields)
            }),
        ])
    }

    /// The table as `soar init` writes it: one route per line, in order.
    public var fileText: String {
        let fields = json.objectValue ?? [:]
        let head = ["schemes", "hosts", "payload_keys"].map { "  \"\($0)\": \(fields[$0]?.jsonText ?? "[]")," }
        let rows = (fields["routes"]?.arrayValue ?? []).map { "    " + $0.jsonText }
        return (["{"] + head + ["  \"routes\": ["] + [rows.joined(separator: ",\n")] + ["  ]", "}"]).joined(separator: "\n") + "\n"
    }

    private static func strings(_ value: JSONValue?, _ key: String) throws(RouteTableError) -> [String] {
        guard let value else { return [] }
        guard let items = value.arrayValue?.compactMap(\.stringValue), items.count == value.arrayValue?.count else {
            throw RouteTableError("\"\(key)\" must be a list of strings")
        }
        return items
    }
}

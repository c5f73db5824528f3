import SoarCore

/// One node of Postgres's parse tree, as libpg_query writes it in JSON: `{"CreateStmt": {...}}`.
///
/// Fields at their default (false, 0, empty) are left out of that JSON, so a missing field reads
/// as the default here.
public struct Node: Sendable {
    /// The node's type, such as `CreateStmt` or `ColumnRef`.
    public let kind: String
    let fields: [String: JSONValue]

    init?(_ value: JSONValue) {
        guard case .object(let object) = value, object.count == 1, let (kind, body) = object.first, case .object(let fields) = body else {
            return nil
        }
        self.kind = kind
        self.fields = fields
    }

    /// A struct-valued field that is not itself a typed node (a `RangeVar` inside `relation`).
    init(kind: String, fields: [String: JSONValue]) {
        self.kind = kind
        self.fields = fields
    }

    public func string(_ name: String) -> String? { fields[name]?.stringValue }
    public func bool(_ name: String) -> Bool { fields[name] == .bool(true) }
    public func int(_ name: String) -> Int? { if case .int(let value)? = fields[name] { value } else { nil } }

    /// A field holding one typed node.
    public func node(_ name: String) -> Node? { fields[name].flatMap(Node.init) }
    /// A field holding a list of typed nodes.
    public func nodes(_ name: String) -> [Node] { fields[name]?.arrayValue?.compactMap(Node.init) ?? [] }
    /// A field holding a plain struct (no type key), read as a node of the given kind.
    public func record(_ name: String, as kind: String) -> Node? {
        fields[name]?.objectValue.map { Node(kind: kind, fields: $0) }
    }

    /// `[{"String": {"sval": "auth"}}, {"String": {"sval": "uid"}}]` -> `["auth", "uid"]`.
    public func names(_ name: String) -> [String] { nodes(name).compactMap(\.stringValue) }

    /// A `String` node's text.
    public var stringValue: String? { kind == "String" ? (string("sval") ?? "") : nil }

    /// Where the node starts in the statement's text (a byte offset), when the parser recorded it.
    public var location: Int? { int("location").flatMap { $0 >= 0 ? $0 : nil } }
}

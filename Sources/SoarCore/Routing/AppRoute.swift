/// A screen of the app, as its route table names it: `todo` with `["id": "42"]`.
///
/// What a tap, a link or an inbox entry opens. An app switches on `name` (or converts to its own
/// enum, as the seed app does with ``PushRoute``).
public struct AppRoute: Hashable, Sendable, Codable, CustomStringConvertible {
    public var name: String
    public var parameters: [String: String]

    public init(_ name: String, _ parameters: [String: String] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    /// `todo(id: 42)`, parameters in name order; the route table describes in pattern order.
    public var description: String {
        let shown = parameters.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return shown.isEmpty ? name : "\(name)(\(shown.joined(separator: ", ")))"
    }
}

import SoarCore

/// The body of `send-test-push`, as the seed's `PushTestRequest` sends it:
/// `{title, body, deeplink, environment}`, each optional, and `image_url` (a picture the app's
/// Notification Service Extension attaches; `soar serve` makes it from a storage path, `image`).
public struct TestPushRequest: Sendable, Equatable {
    public var title = "Test notification"
    public var body = "Push works: this came from your Soar server."
    /// Where a tap goes (`userInfo["deeplink"]`); the app routes it through PushRoute.
    public var deeplink: String? = "soar:///notifications"
    /// The host for devices whose environment is not known yet; nil: the server's default.
    public var environment: PushEnvironment?
    /// `userInfo["image_url"]`, with `mutable-content` so the extension runs.
    public var imageURL: String?
    /// `userInfo["kind"]`: a kind the user muted is not sent (unless the server holds it critical).
    public var kind: String?

    public init() {}

    /// - Throws: ``PushError`` 400 naming the field of the wrong type or value.
    public init(json: JSONValue) throws(PushError) {
        guard let object = json.objectValue else { throw .invalid("the body must be a JSON object: {title, body, deeplink, environment}") }
        func text(_ name: String) throws(PushError) -> String? {
            switch object[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw .invalid("\(name) must be a string")
            }
        }
        if let title = try text("title") { self.title = title }
        if let body = try text("body") { self.body = body }
        if object["deeplink"] == .null { deeplink = nil } else if let link = try text("deeplink") { deeplink = link }
        if let name = try text("environment") {
            guard let environment = PushEnvironment(named: name) else { throw .invalid("environment must be \"sandbox\" or \"production\", not \"\(name)\"") }
            self.environment = environment
        }
        imageURL = try PushImage.url(text("image_url"))
        kind = try PushKind.checked(text("kind"))
    }
}

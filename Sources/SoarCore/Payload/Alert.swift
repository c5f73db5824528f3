/// `aps.alert`: a plain string, or a dictionary of title, subtitle, body and localization keys.
public enum Alert: Hashable, Sendable {
    case text(String)
    case content(AlertContent)

    /// An alert dictionary with a title and body, the common case.
    public static func titled(_ title: String, body: String, subtitle: String? = nil) -> Alert {
        .content(AlertContent(title: title, subtitle: subtitle, body: body))
    }

    init?(json: JSONValue) {
        switch json {
        case .string(let text): self = .text(text)
        case .object(let fields): self = .content(AlertContent(fields: fields))
        default: return nil
        }
    }

    var json: JSONValue {
        switch self {
        case .text(let text): .string(text)
        case .content(let content): .object(content.fields)
        }
    }
}

/// The dictionary form of ``Alert``, backed by its JSON object so unknown keys survive.
public struct AlertContent: Hashable, Sendable {
    public var fields: [String: JSONValue]

    public init(fields: [String: JSONValue] = [:]) { self.fields = fields }

    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
        self.fields = [:]
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }

    static let schema: [String: JSONKind] = [
        "title": .string, "subtitle": .string, "body": .string, "launch-image": .string,
        "title-loc-key": .string, "title-loc-args": .stringArray, "subtitle-loc-key": .string,
        "subtitle-loc-args": .stringArray, "loc-key": .string, "loc-args": .stringArray, "action-loc-key": .string,
    ]

    public var title: String? { get { string("title") } set { set("title", newValue) } }
    public var subtitle: String? { get { string("subtitle") } set { set("subtitle", newValue) } }
    public var body: String? { get { string("body") } set { set("body", newValue) } }
    public var launchImage: String? { get { string("launch-image") } set { set("launch-image", newValue) } }
    public var titleLocKey: String? { get { string("title-loc-key") } set { set("title-loc-key", newValue) } }
    public var titleLocArgs: [String]? { get { strings("title-loc-args") } set { set("title-loc-args", newValue) } }
    public var subtitleLocKey: String? { get { string("subtitle-loc-key") } set { set("subtitle-loc-key", newValue) } }
    public var subtitleLocArgs: [String]? {
        get { strings("subtitle-loc-args") }
        set { set("subtitle-loc-args", newValue) }
    }
    public var locKey: String? { get { string("loc-key") } set { set("loc-key", newValue) } }
    public var locArgs: [String]? { get { strings("loc-args") } set { set("loc-args", newValue) } }

    private func string(_ key: String) -> String? { fields[key]?.stringValue }
    private func strings(_ key: String) -> [String]? { fields[key]?.arrayValue?.compactMap(\.stringValue) }
    private mutating func set(_ key: String, _ value: String?) { fields[key] = value.map(JSONValue.string) }
    private mutating func set(_ key: String, _ value: [String]?) {
        fields[key] = value.map { .array($0.map(JSONValue.string)) }
    }
}

/// `aps.sound`: a sound file's name, or the dictionary of a critical alert.
public enum Sound: Hashable, Sendable {
    case named(String)
    /// A critical alert sound, played even when the device is muted; `volume` is 0...1.
    case critical(name: String, volume: Double)

    public static let `default` = Sound.named("default")

    static let schema: [String: JSONKind] = ["critical": .integer, "name": .string, "volume": .number]

    init?(json: JSONValue) {
        switch json {
        case .string(let name): self = .named(name)
        case .object(let fields):
            self = .critical(name: fields["name"]?.stringValue ?? "default", volume: fields["volume"]?.doubleValue ?? 1)
        default: return nil
        }
    }

    var json: JSONValue {
        switch self {
        case .named(let name): .string(name)
        case .critical(let name, let volume): ["critical": 1, "name": .string(name), "volume": .double(volume)]
        }
    }
}

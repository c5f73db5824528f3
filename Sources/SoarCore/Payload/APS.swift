/// The `aps` dictionary of a notification, as Apple documents it.
///
/// Backed by the JSON object itself, so keys Soar does not model (or Apple adds later) survive a
/// decode-then-encode round trip. Typed properties read and write the documented keys.
public struct APS: Hashable, Sendable {
    /// Every key of the dictionary, documented or not.
    public var fields: [String: JSONValue]

    public init(fields: [String: JSONValue] = [:]) { self.fields = fields }

    /// Checks the documented keys' types and values.
    public init(validating fields: [String: JSONValue]) throws(PayloadError) {
        try JSONKind.check(fields, against: Self.schema, path: "aps.")
        if let level = fields["interruption-level"]?.stringValue, !InterruptionLevel.all.contains(.init(rawValue: level)) {
            throw .invalid("aps.interruption-level", "must be passive, active, time-sensitive or critical, not \"\(level)\"")
        }
        if let badge = fields["badge"]?.intValue, badge < 0 { throw .invalid("aps.badge", "must not be negative") }
        self.fields = fields
    }

    public init(
        alert: Alert? = nil, badge: Int? = nil, sound: Sound? = nil, threadID: String? = nil,
        category: String? = nil, contentAvailable: Bool = false, mutableContent: Bool = false
    ) {
        self.fields = [:]
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.threadID = threadID
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
    }

    static let schema: [String: JSONKind] = [
        "alert": .stringOr(AlertContent.schema), "badge": .integer, "sound": .stringOr(Sound.schema),
        "thread-id": .string, "category": .string, "content-available": .integer, "mutable-content": .integer,
        "target-content-id": .string, "interruption-level": .string, "relevance-score": .number,
        "filter-criteria": .string, "timestamp": .integer, "event": .string, "content-state": .object,
        "stale-date": .integer, "dismissal-date": .integer, "attributes-type": .string, "attributes": .object,
        "input-push-token": .integer, "input-push-channel": .string,
    ]
}

extension APS {
    public var alert: Alert? {
        get { fields["alert"].flatMap(Alert.init(json:)) }
        set { fields["alert"] = newValue?.json }
    }
    public var badge: Int? {
        get { fields["badge"]?.intValue }
        set { fields["badge"] = newValue.map(JSONValue.int) }
    }
    public var sound: Sound? {
        get { fields["sound"].flatMap(Sound.init(json:)) }
        set { fields["sound"] = newValue?.json }
    }
    public var threadID: String? {
        get { fields["thread-id"]?.stringValue }
        set { fields["thread-id"] = newValue.map(JSONValue.string) }
    }
    public var category: String? {
        get { fields["category"]?.stringValue }
        set { fields["category"] = newValue.map(JSONValue.string) }
    }
    /// `content-available: 1`, a silent background update.
    public var contentAvailable: Bool {
        get { fields["content-available"]?.intValue == 1 }
        set { fields["content-available"] = newValue ? 1 : nil }
    }
    /// `mutable-content: 1`, which lets a Notification Service Extension rewrite the content.
    public var mutableContent: Bool {
        get { fields["mutable-content"]?.intValue == 1 }
        set { fields["mutable-content"] = newValue ? 1 : nil }
    }
    public var targetContentID: String? {
        get { fields["target-content-id"]?.stringValue }
        set { fields["target-content-id"] = newValue.map(JSONValue.string) }
    }
    public var interruptionLevel: InterruptionLevel? {
        get { fields["interruption-level"]?.stringValue.map(InterruptionLevel.init(rawValue:)) }
        set { fields["interruption-level"] = newValue.map { .string($0.rawValue) } }
    }
    public var relevanceScore: Double? {
        get { fields["relevance-score"]?.doubleValue }
        set { fields["relevance-score"] = newValue.map(JSONValue.double) }
    }
    public var filterCriteria: String? {
        get { fields["filter-criteria"]?.stringValue }
        set { fields["filter-criteria"] = newValue.map(JSONValue.string) }
    }
}

extension APS {
    /// Live Activity: when the update was produced, in seconds since 1970.
    public var timestamp: Int? {
        get { fields["timestamp"]?.intValue }
        set { fields["timestamp"] = newValue.map(JSONValue.int) }
    }
    /// Live Activity: `start`, `update` or `end`.
    public var event: String? {
        get { fields["event"]?.stringValue }
        set { fields["event"] = newValue.map(JSONValue.string) }
    }
    public var contentState: [String: JSONValue]? {
        get { fields["content-state"]?.objectValue }
        set { fields["content-state"] = newValue.map(JSONValue.object) }
    }
    public var staleDate: Int? {
        get { fields["stale-date"]?.intValue }
        set { fields["stale-date"] = newValue.map(JSONValue.int) }
    }
    public var dismissalDate: Int? {
        get { fields["dismissal-date"]?.intValue }
        set { fields["dismissal-date"] = newValue.map(JSONValue.int) }
    }
    public var attributesType: String? {
        get { fields["attributes-type"]?.stringValue }
        set { fields["attributes-type"] = newValue.map(JSONValue.string) }
    }
    public var attributes: [String: JSONValue]? {
        get { fields["attributes"]?.objectValue }
        set { fields["attributes"] = newValue.map(JSONValue.object) }
    }
}

/// `aps.interruption-level`.
public struct InterruptionLevel: Hashable, Sendable, RawRepresentable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let passive = InterruptionLevel(rawValue: "passive")
    public static let active = InterruptionLevel(rawValue: "active")
    public static let timeSensitive = InterruptionLevel(rawValue: "time-sensitive")
    public static let critical = InterruptionLevel(rawValue: "critical")
    static let all: [InterruptionLevel] = [.passive, .active, .timeSensitive, .critical]
}

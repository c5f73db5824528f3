/// The `apns-push-type` of a notification, with the rules Apple attaches to each.
///
/// An open set: Apple adds types, so unknown raw values are kept rather than rejected.
public struct PushType: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String
    /// Appended to the app's bundle id to form the `apns-topic`.
    public let topicSuffix: String

    public init(rawValue: String) {
        self = Self.all.first { $0.rawValue == rawValue } ?? PushType(rawValue, suffix: "")
    }

    private init(_ rawValue: String, suffix: String) {
        self.rawValue = rawValue
        self.topicSuffix = suffix
    }

    public static let alert = PushType("alert", suffix: "")
    public static let background = PushType("background", suffix: "")
    public static let location = PushType("location", suffix: ".location-query")
    public static let voip = PushType("voip", suffix: ".voip")
    public static let complication = PushType("complication", suffix: ".complication")
    public static let fileprovider = PushType("fileprovider", suffix: ".pushkit.fileprovider")
    public static let mdm = PushType("mdm", suffix: "")
    public static let liveactivity = PushType("liveactivity", suffix: ".push-type.liveactivity")
    public static let pushtotalk = PushType("pushtotalk", suffix: ".voip-ptt")
    public static let widgets = PushType("widgets", suffix: ".push-type.widgets")
    public static let controls = PushType("controls", suffix: ".push-type.controls")

    /// Every type Apple documents.
    public static let all: [PushType] = [
        .alert, .background, .location, .voip, .complication, .fileprovider, .mdm, .liveactivity, .pushtotalk,
        .widgets, .controls,
    ]

    /// Whether Apple knows this type.
    public var isKnown: Bool { Self.all.contains(self) }

    /// The largest payload APNs accepts for this type, in bytes.
    public var payloadLimit: Int { self == .voip ? 5120 : 4096 }

    /// The `apns-topic` for an app: its bundle id plus this type's suffix.
    public func topic(forBundleID bundleID: String) -> String {
        bundleID.hasSuffix(topicSuffix) ? bundleID : bundleID + topicSuffix
    }

    public var description: String { rawValue }
}

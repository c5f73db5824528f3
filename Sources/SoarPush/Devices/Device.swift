/// One registered device, as push reads it from `device_tokens`.
public struct Device: Sendable, Equatable {
    public let userID: String
    public let token: String
    /// Where its token was last seen to work; nil until known.
    public let environment: PushEnvironment?
    /// The app it belongs to (`apns-topic`); nil means the server's `APNS_BUNDLE_ID`.
    public let bundleID: String?
    /// As stored (ISO 8601 text), kept to write it back unchanged.
    public let updatedAt: String
    /// The locale it registered (`device_tokens.locale`), which picks a template's variant.
    public var locale: String? = nil

    /// The token as results show it: enough to recognise, not enough to use.
    public var shortToken: String {
        token.count <= 16 ? token : "\(token.prefix(8))…\(token.suffix(4))"
    }
}

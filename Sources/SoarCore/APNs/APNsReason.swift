/// A `reason` string from APNs' error answers, with the HTTP status Apple pairs it with.
///
/// Apple's table from "Handling notification responses from APNs", in one place, shared by the
/// provider (which classifies them) and the emulator (which answers with them). An unknown
/// reason is kept as text.
public struct APNsReason: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String
    /// The status Apple answers with; 0 for a reason Soar does not know.
    public let status: Int

    public init(rawValue: String) {
        self = Self.all.first { $0.rawValue == rawValue } ?? APNsReason(rawValue, 0)
    }

    private init(_ rawValue: String, _ status: Int) {
        self.rawValue = rawValue
        self.status = status
    }

    public var description: String { rawValue }
    public var isKnown: Bool { status != 0 }

    public static let badCollapseId = APNsReason("BadCollapseId", 400)
    public static let badDeviceToken = APNsReason("BadDeviceToken", 400)
    public static let badExpirationDate = APNsReason("BadExpirationDate", 400)
    public static let badMessageId = APNsReason("BadMessageId", 400)
    public static let badPriority = APNsReason("BadPriority", 400)
    public static let badTopic = APNsReason("BadTopic", 400)
    public static let deviceTokenNotForTopic = APNsReason("DeviceTokenNotForTopic", 400)
    public static let duplicateHeaders = APNsReason("DuplicateHeaders", 400)
    public static let idleTimeout = APNsReason("IdleTimeout", 400)
    public static let invalidPushType = APNsReason("InvalidPushType", 400)
    public static let missingDeviceToken = APNsReason("MissingDeviceToken", 400)
    public static let missingTopic = APNsReason("MissingTopic", 400)
    public static let payloadEmpty = APNsReason("PayloadEmpty", 400)
    public static let topicDisallowed = APNsReason("TopicDisallowed", 400)
    /// Not in Apple's table: the emulator's answer to a body that is not a JSON object with `aps`.
    public static let badRequest = APNsReason("BadRequest", 400)
    public static let badCertificate = APNsReason("BadCertificate", 403)
    public static let badCertificateEnvironment = APNsReason("BadCertificateEnvironment", 403)
    public static let expiredProviderToken = APNsReason("ExpiredProviderToken", 403)
    public static let forbidden = APNsReason("Forbidden", 403)
    public static let invalidProviderToken = APNsReason("InvalidProviderToken", 403)
    public static let missingProviderToken = APNsReason("MissingProviderToken", 403)
    public static let unrelatedKeyIdInToken = APNsReason("UnrelatedKeyIdInToken", 403)
    public static let badEnvironmentKeyIdInToken = APNsReason("BadEnvironmentKeyIdInToken", 403)
    public static let badPath = APNsReason("BadPath", 404)
    public static let methodNotAllowed = APNsReason("MethodNotAllowed", 405)
    public static let expiredToken = APNsReason("ExpiredToken", 410)
    public static let unregistered = APNsReason("Unregistered", 410)
    public static let payloadTooLarge = APNsReason("PayloadTooLarge", 413)
    public static let tooManyProviderTokenUpdates = APNsReason("TooManyProviderTokenUpdates", 429)
    public static let tooManyRequests = APNsReason("TooManyRequests", 429)
    public static let internalServerError = APNsReason("InternalServerError", 500)
    public static let serviceUnavailable = APNsReason("ServiceUnavailable", 503)
    public static let shutdown = APNsReason("Shutdown", 503)

    public static let all: [APNsReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken, .missingTopic,
        .payloadEmpty, .topicDisallowed, .badRequest, .badCertificate, .badCertificateEnvironment, .expiredProviderToken,
        .forbidden, .invalidProviderToken, .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken,
        .badPath, .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge, .tooManyProviderTokenUpdates,
        .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]
}

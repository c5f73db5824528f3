import Foundation
import SoarCore
import SoarCrypto
import SoarHTTP2

/// Checks a request the way APNs does, in Apple's terms: a pure function of the request, the
/// connection's auth state, the emulator's state and the time.
public struct RequestValidator: Sendable {
    public let state: EmulatorState
    /// Bundle ids that may be pushed to (with any push-type suffix); nil allows every topic.
    public let allowedTopics: Set<String>?
    public let now: @Sendable () -> Date

    /// Apple's limits on provider tokens.
    static let tokenLifetime: TimeInterval = 3600
    static let tokenUpdateInterval: TimeInterval = 20 * 60
    static let knownSuffixes = Set(PushType.all.map(\.topicSuffix).filter { !$0.isEmpty })
    static let checkedHeaders: Set<String> = [
        "authorization", "apns-id", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id",
    ]

    public init(state: EmulatorState, allowedTopics: Set<String>? = nil, now: @escaping @Sendable () -> Date = Date.init) {
        self.state = state
        self.allowedTopics = allowedTopics
        self.now = now
    }

    public func validate(_ request: H2Request, auth: inout ConnectionAuth) -> Verdict {
        let apnsID = request.header("apns-id") ?? RandomUUID.lowercase()
        func reject(_ reason: APNsReason, timestamp: Int64? = nil) -> Verdict {
            .rejected(reason: reason.rawValue, status: reason.status, apnsID: apnsID, timestamp: timestamp)
        }
        guard request.method == "POST" else { return reject(.methodNotAllowed) }
        guard request.path.hasPrefix("/3/device") else { return reject(.badPath) }
        // Byte-level from here on: Character counts and Foundation's `contains` cost more than the rest.
        let token = request.path.utf8.dropFirst(9).drop { $0 == UInt8(ascii: "/") }
        guard !token.isEmpty else { return reject(.missingDeviceToken) }
        guard !token.contains(UInt8(ascii: "/")) else { return reject(.badPath) }

        var seen: [String] = []
        for (name, _) in request.headers where Self.checkedHeaders.contains(name) {
            guard !seen.contains(name) else { return reject(.duplicateHeaders) }
            seen.append(name)
        }
        if auth.clientCertificate == nil, let failure = checkProviderToken(request.header("authorization"), auth: &auth) {
            return reject(failure)
        }
        guard token.count.isMultiple(of: 2), token.allSatisfy(\.isHexDigit) else { return reject(.badDeviceToken) }

        let pushType = PushType(rawValue: request.header("apns-push-type") ?? "alert")
        guard let topic = request.header("apns-topic") ?? auth.clientCertificate, !topic.isEmpty else {
            return reject(.missingTopic)
        }
        if let allowedTopics, !allowedTopics.contains(where: { topic == $0 || topic.hasPrefix($0 + ".") }) {
            return reject(.topicDisallowed)
        }
        guard pushType.isKnown, topicFits(topic, pushType) else { return reject(.invalidPushType) }
        if let priority = request.header("apns-priority") {
            guard ["10", "5", "1"].contains(priority), !(pushType == .background && priority == "10") else {
                return reject(.badPriority)
            }
        }
        if let expiration = request.header("apns-expiration") {
            guard !expiration.isEmpty, expiration.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), expiration.count < 19 else {
                return reject(.badExpirationDate)
            }
        }
        if let id = request.header("apns-id"), !Self.isUUID(id) { return reject(.badMessageId) }
        if let collapse = request.header("apns-collapse-id"), collapse.utf8.count > 64 { return reject(.badCollapseId) }

        guard request.bodySize > 0 else { return reject(.payloadEmpty) }
        guard request.bodySize <= pushType.payloadLimit else { return reject(.payloadTooLarge) }
        guard let payload = try? JSONValue.read(request.body), let object = payload.objectValue, (try? Payload(object: object)) != nil else {
            return reject(.badRequest)
        }

        switch state.mark(String(Substring(token))) {
        case .bad: return reject(.badDeviceToken)
        case .unregistered(let since): return reject(.unregistered, timestamp: since)
        case nil: return .accepted(apnsID: apnsID, payload: payload)
        }
    }

    /// The reason a provider token fails, or nil when it is good; remembers a newly accepted one.
    func checkProviderToken(_ header: String?, auth: inout ConnectionAuth) -> APNsReason? {
        guard let header, header.utf8.count > 7, header.utf8.prefix(7).map({ $0 | 0x20 }).elementsEqual("bearer ".utf8) else {
            return .missingProviderToken
        }
        let text = String(Substring(header.utf8.dropFirst(7)))
        let now = now()
        if text == auth.token {
            return now.timeIntervalSince1970 - Double(auth.tokenIssuedAt) > Self.tokenLifetime ? .expiredProviderToken : nil
        }
        guard let unverified = try? JWT.decode(text), unverified.jwt.algorithm == "ES256",
            let keyID = unverified.jwt.keyID, let key = state.key(id: keyID),
            unverified.jwt.issuer == key.teamID, let issuedAt = unverified.jwt.issuedAt,
            unverified.verify(with: key.publicKey),
            Double(issuedAt) <= now.timeIntervalSince1970 + 300
        else { return .invalidProviderToken }
        if now.timeIntervalSince1970 - Double(issuedAt) > Self.tokenLifetime { return .expiredProviderToken }
        if let since = auth.tokenAcceptedAt, now.timeIntervalSince(since) < Self.tokenUpdateInterval {
            return .tooManyProviderTokenUpdates
        }
        auth.token = text
        auth.tokenIssuedAt = issuedAt
        auth.tokenAcceptedAt = now
        return nil
    }

    /// A push type with a topic suffix needs it; the others must not carry another type's suffix.
    func topicFits(_ topic: String, _ type: PushType) -> Bool {
        if !type.topicSuffix.isEmpty { return topic.hasSuffix(type.topicSuffix) }
        if type == .mdm { return true }
        return !Self.knownSuffixes.contains { topic.hasSuffix($0) }
    }

    /// 8-4-4-4-12 hex digits, either case.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !byte.isHexDigit {
                return false
            }
        }
        return true
    }
}

extension UInt8 {
    var isHexDigit: Bool { (48...57).contains(self) || (97...102).contains(self) || (65...70).contains(self) }
}

import Foundation

/// A whole APNs notification body: the `aps` dictionary plus the app's own top-level keys.
///
/// Custom keys such as `deeplink`, `url`, `target_url` and `kind` travel beside `aps`; every key,
/// known or not, survives a decode-then-encode round trip.
public struct Payload: Hashable, Sendable {
    public var aps: APS
    /// Top-level keys other than `aps`.
    public var custom: [String: JSONValue]

    public init(aps: APS = APS(), custom: [String: JSONValue] = [:]) {
        self.aps = aps
        self.custom = custom
    }

    /// The key of the server's inbox row id, which the app reports opens and reads by.
    public static let inboxIDKey = "soar_id"
    /// The key of a retraction: the collapse id of the notification the server takes back.
    public static let retractKey = "soar_retract"

    /// Builds a payload from a JSON object, checking the documented keys.
    ///
    /// - Throws: ``PayloadError`` when `aps` is missing or a documented key has the wrong type.
    public init(object: [String: JSONValue]) throws(PayloadError) {
        guard let apsValue = object["aps"] else { throw .missingAPS }
        guard case .object(let apsFields) = apsValue else { throw .wrongType("aps", expected: "an object", got: apsValue) }
        self.aps = try APS(validating: apsFields)
        self.custom = object.filter { $0.key != "aps" }
    }

    /// Parses and checks a JSON document.
    ///
    /// - Throws: ``PayloadError`` for text that is not a JSON object with a valid `aps`.
    public init(json data: Data) throws(PayloadError) {
        try self.init(object: Self.jsonObject(data))
    }

    /// Parses a JSON document that must be an object.
    static func jsonObject(_ data: Data) throws(PayloadError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONValue.read(data)
        } catch {
            throw .notJSON(error.description)
        }
        guard case .object(let object) = value else { throw .notObject }
        return object
    }

    /// The whole document as one JSON object.
    public var object: [String: JSONValue] {
        var object = custom
        object["aps"] = .object(aps.fields)
        return object
    }

    /// The compact JSON sent to APNs, numbers as they were written.
    public func encoded() -> Data { JSONValue.object(object).jsonData }

    /// The encoded size in bytes, the figure APNs compares with its limit.
    public var size: Int { encoded().count }

    /// Checks the encoded size against the limit for a push type.
    ///
    /// - Returns: the encoded payload.
    /// - Throws: ``PayloadError`` when it is over the limit.
    @discardableResult
    public func checkedData(for pushType: PushType = .alert) throws(PayloadError) -> Data {
        let data = encoded()
        try Self.checkSize(data.count, for: pushType)
        return data
    }

    /// Checks an encoded size against APNs' limit for a push type.
    ///
    /// - Throws: ``PayloadError`` when it is over the limit.
    public static func checkSize(_ size: Int, for pushType: PushType) throws(PayloadError) {
        guard size <= pushType.payloadLimit else {
            throw .tooLarge(size: size, limit: pushType.payloadLimit, pushType: pushType)
        }
    }
}

extension Payload: Codable {
    public init(from decoder: any Decoder) throws {
        let object = try [String: JSONValue](from: decoder)
        do {
            try self.init(object: object)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try object.encode(to: encoder)
    }
}

extension Payload {
    /// A visible alert with a title and body, plus custom keys such as `deeplink`.
    public static func alert(title: String, body: String, sound: Sound? = .default, custom: [String: JSONValue] = [:])
        -> Payload
    {
        Payload(aps: APS(alert: .titled(title, body: body), sound: sound), custom: custom)
    }
}

import Foundation

/// A `.apns` file as dropped on the iOS Simulator: a payload plus the `Simulator Target Bundle` key.
///
/// A plain APNs JSON document reads too, with no target bundle.
public struct SimulatorFile: Hashable, Sendable {
    public static let targetBundleKey = "Simulator Target Bundle"

    /// The payload as APNs would carry it, without the simulator's key.
    public var payload: Payload
    /// The bundle id the Simulator delivers to, when the file names one.
    public var targetBundle: String?

    public init(payload: Payload, targetBundle: String? = nil) {
        self.payload = payload
        self.targetBundle = targetBundle
    }

    /// - Throws: ``PayloadError`` when the text is not a payload APNs would accept.
    public init(data: Data) throws(PayloadError) {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            // Let Payload produce the one "not valid JSON" message.
            _ = try Payload(json: data)
            throw .notObject
        }
        guard case .object(var object) = value else { throw .notObject }
        let target = object.removeValue(forKey: Self.targetBundleKey)
        if let target, target.stringValue == nil {
            throw .wrongType(Self.targetBundleKey, expected: "a string", got: target)
        }
        self.init(payload: try Payload(object: object), targetBundle: target?.stringValue)
    }
}

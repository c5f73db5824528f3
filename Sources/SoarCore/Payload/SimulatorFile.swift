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
        var object = try Payload.jsonObject(data)
        let target = object.removeValue(forKey: Self.targetBundleKey)
        if let target, target.stringValue == nil {
            throw .wrongType(Self.targetBundleKey, expected: "a string", got: target)
        }
        self.init(payload: try Payload(object: object), targetBundle: target?.stringValue)
    }
}

/// Why a payload is not one APNs would accept.
public struct PayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }

    public static func notJSON(_ detail: String) -> PayloadError { .init("the payload is not valid JSON: \(detail)") }
    static let notObject = PayloadError("the payload must be a JSON object")
    static let missingAPS = PayloadError("the payload has no \"aps\" dictionary")
    static func wrongType(_ key: String, expected: String, got: JSONValue) -> PayloadError {
        .init("\"\(key)\" must be \(expected), not \(got.typeName)")
    }
    static func invalid(_ key: String, _ detail: String) -> PayloadError { .init("\"\(key)\" \(detail)") }
    static func tooLarge(size: Int, limit: Int, pushType: PushType) -> PayloadError {
        .init("the payload is \(size) bytes, over the \(limit)-byte limit for \(pushType) notifications")
    }
}

/// Who a request runs as: the JWT's role and, for `authenticated`, the user's id (`auth.uid()`).
public struct Access: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        case anon
        case authenticated
        case serviceRole = "service_role"
    }

    public let role: Role
    public let userID: String?

    public init(role: Role, userID: String? = nil) {
        self.role = role
        self.userID = userID
    }

    public static let anon = Access(role: .anon)
    public static let service = Access(role: .serviceRole)
    public static func user(_ id: String) -> Access { Access(role: .authenticated, userID: id) }
}

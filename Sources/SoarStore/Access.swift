/// Who a request runs as: the JWT's role and, for `authenticated`, the user's id (`auth.uid()`).
public struct Access: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        case anon
        case authenticated
        case serviceRole = "service_role"
    }

    public let role: Role
    public let userID: String?
    /// The authenticator assurance level of the token (`aal1`; `aal2` after a second factor),
    /// what `auth.jwt() ->> 'aal'` answers in a policy.
    public let aal: String

    public init(role: Role, userID: String? = nil, aal: String = "aal1") {
        self.role = role
        self.userID = userID
        self.aal = aal
    }

    public static let anon = Access(role: .anon)
    public static let service = Access(role: .serviceRole)
    public static func user(_ id: String) -> Access { Access(role: .authenticated, userID: id) }
}

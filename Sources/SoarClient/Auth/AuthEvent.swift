/// A change of who is signed in, as ``AuthClient/stateChanges()`` streams it.
public struct AuthEvent: Hashable, Sendable {
    /// What happened; the first event a stream yields is ``Kind/initialSession``.
    public enum Kind: String, Hashable, Sendable {
        case initialSession, signedIn, signedOut, tokenRefreshed
    }

    public var kind: Kind
    /// The session after the change; nil once signed out.
    public var session: Session?

    public init(_ kind: Kind, _ session: Session?) {
        self.kind = kind
        self.session = session
    }
}

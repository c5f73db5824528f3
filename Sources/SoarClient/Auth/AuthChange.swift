/// What changed about who is signed in, as ``SoarAuthClient/authStateChanges`` streams it
/// (supabase-swift's `AuthChangeEvent` cases, by the same names).
public enum AuthChange: String, Hashable, Sendable {
    /// The first event of every stream: the session at hand (nil when nobody is signed in).
    case initialSession
    case signedIn, signedOut, tokenRefreshed
}

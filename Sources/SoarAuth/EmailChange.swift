import Foundation
import SoarCore
import SoarStore

/// GoTrue's email change: `PUT /user` with a new email mails a code and link to the new address
/// and one to the current address. With confirmation required both must be confirmed (GoTrue's
/// secure email change); otherwise either one completes it. An anonymous user's new email takes
/// effect at once unless confirmation is required.
extension AuthService {
    /// Keeps the change pending on the user and mails its confirmations.
    ///
    /// - Throws: 422 `email_exists` when another user has the address.
    func requestEmailChange(_ user: AuthUser, to newEmail: String, redirectTo: String? = nil, challenge: Challenge? = nil) throws(AuthError) -> AuthUser {
        if let owner = try lookup({ () throws(StoreError) in try store.user(email: newEmail) }), owner.id != user.id { throw .emailExists }
        var user = user
        user.newEmail = newEmail
        user.emailChangeSentAt = Timestamp.postgres(now())
        do { try store.updateUser(user) } catch { throw .storeFailed(error) }
        do throws(AuthError) {
            try mailEmailChange(user, to: newEmail, redirectTo: redirectTo, challenge: challenge)
        } catch {
            // Unmailed, the change could never be confirmed: it is not kept.
            user.newEmail = nil
            user.emailChangeSentAt = nil
            _ = try? store.updateUser(user)
            throw error
        }
        return user
    }

    /// The change's mails: to the new address, and to the current one when there is one.
    func mailEmailChange(_ user: AuthUser, to newEmail: String, redirectTo: String?, challenge: Challenge?) throws(AuthError) {
        let values = ["NewEmail": newEmail]
        try mailCode(.emailChange, type: "email_change_new", to: user, address: newEmail, values: values, redirectTo: redirectTo, challenge: challenge)
        if user.email != nil {
            try mailCode(.emailChange, type: "email_change_current", to: user, values: values, redirectTo: redirectTo, challenge: challenge)
        }
    }

    /// A change's code was used: the user with the new email, or nil while the other address's
    /// code (needed when confirmation is required) is still waiting.
    func confirmEmailChange(_ user: AuthUser, by token: OneTimeToken) throws(AuthError) -> AuthUser? {
        guard let newEmail = user.newEmail else { throw AuthError(403, "otp_expired", "Email link is invalid or has expired") }
        let other = token.type == "email_change_new" ? "email_change_current" : "email_change_new"
        let waiting: Bool
        do { waiting = try store.hasOneTimeToken(userID: user.id, type: other) } catch { throw .storeFailed(error) }
        if confirmationRequired && waiting { return nil }
        var user = user
        user.email = newEmail
        user.newEmail = nil
        user.emailChangeSentAt = nil
        user.emailConfirmedAt = Timestamp.postgres(now())
        user.updatedAt = user.emailConfirmedAt ?? user.updatedAt
        if user.isAnonymous { user.appMetadata = ["provider": "email", "providers": ["email"]] }
        if user.passwordHash != nil { user.isAnonymous = false }
        do { try store.updateUser(user) } catch {
            throw error.code == "23505" ? .emailExists : .storeFailed(error)
        }
        return user
    }
}

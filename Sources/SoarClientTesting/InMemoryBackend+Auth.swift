import Foundation
import SoarClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension InMemoryBackend {
    /// GoTrue's password flows: sign-up, sign-in, refresh, sign-out and the user.
    enum Auth {
        static func answer(
            _ path: [String], _ query: [(String, String)], _ body: JSONValue?, _ request: URLRequest, _ state: inout State
        ) -> (Int, JSONValue) {
            let fields = body?.objectValue ?? [:]
            let email = fields["email"]?.stringValue?.lowercased() ?? ""
            let password = fields["password"]?.stringValue ?? ""
            switch (request.httpMethod ?? "GET", path.first ?? "") {
            case ("POST", "signup"):
                guard !email.isEmpty, password.count >= 6 else {
                    return error(422, "weak_password", "Password should be at least 6 characters.")
                }
                guard state.users[email] == nil else { return error(422, "user_already_exists", "User already registered") }
                state.users[email] = (UUID(), password)
                return (200, session(email, &state))
            case ("POST", "token") where query.contains { $0 == ("grant_type", "password") }:
                guard let user = state.users[email], user.password == password else {
                    return error(400, "invalid_credentials", "Invalid login credentials")
                }
                return (200, session(email, &state))
            case ("POST", "token") where query.contains { $0 == ("grant_type", "refresh_token") }:
                let token = fields["refresh_token"]?.stringValue ?? ""
                guard let id = state.tokens.removeValue(forKey: token), let email = state.users.first(where: { $0.value.id == id })?.key else {
                    return error(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
                }
                return (200, session(email, &state))
            case ("POST", "logout"):
                if let token = bearer(request), let id = state.tokens[token] { state.tokens = state.tokens.filter { $0.value != id } }
                return (204, .null)
            case ("GET", "user"):
                guard let token = bearer(request), let id = state.tokens[token], let email = state.users.first(where: { $0.value.id == id })?.key else {
                    return error(401, "bad_jwt", "invalid JWT")
                }
                return (200, user(id, email))
            default:
                return error(501, "not_implemented", "InMemoryBackend does not serve auth/v1/\(path.joined(separator: "/"))")
            }
        }

        private static func session(_ email: String, _ state: inout State) -> JSONValue {
            let id = state.users[email]!.id
            let access = "in-memory-access-" + UUID().uuidString
            let refresh = "in-memory-refresh-" + UUID().uuidString
            state.tokens[access] = id
            state.tokens[refresh] = id
            return [
                "access_token": .string(access), "token_type": "bearer", "expires_in": 3600,
                "expires_at": .int(Int(Date().timeIntervalSince1970) + 3600), "refresh_token": .string(refresh), "user": user(id, email),
            ]
        }

        private static func user(_ id: UUID, _ email: String) -> JSONValue {
            ["id": .string(id.uuidString.lowercased()), "email": .string(email), "role": "authenticated", "is_anonymous": false]
        }
    }
}

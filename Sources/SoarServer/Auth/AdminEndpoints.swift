import Foundation
import SoarAuth
import SoarCore
import SoarHTTP
import SoarStore

/// GoTrue's `/admin/users`: service role only.
struct AdminEndpoints: Sendable {
    let auth: AuthService
    let gateway: Gateway

    func users(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try requireServiceRole(exchange)
        if exchange.request.method == "POST" { return try create(exchange) }
        let page = max(1, Int(exchange.request.queryValue("page") ?? "") ?? 1)
        let perPage = min(1000, max(1, Int(exchange.request.queryValue("per_page") ?? "") ?? 50))
        do {
            let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: perPage)
            let (users, total) = try auth.store.users(offset: overflow ? Int.max : offset, limit: perPage)
            var response = HTTPResponse.json(200, ["users": .array(users.map(\.json)), "aud": "authenticated"])
            response.headers.append(("x-total-count", String(total)))
            return response
        } catch {
            throw .auth(.storeFailed(error))
        }
    }

    func user(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try requireServiceRole(exchange)
        let id = (exchange.parameters["id"] ?? "").lowercased()
        guard RandomUUID.parse(id) != nil else { throw .auth(AuthError(404, "user_not_found", "User not found")) }
        do {
            switch exchange.request.method {
            case "DELETE":
                guard try auth.store.deleteUser(id: id) else { throw AuthError.userNotFound }
                return .json(200, [:])
            default:
                guard var user = try auth.store.user(id: id) else { throw AuthError.userNotFound }
                guard exchange.request.method == "PUT" else { return .json(200, user.json) }
                let body = try AuthEndpoints.object(exchange)
                if let appMetadata = body["app_metadata"]?.objectValue { user.appMetadata.merge(appMetadata) { $1 } }
                user = try auth.update(
                    user, email: try AuthEndpoints.string(body, "email"), password: try AuthEndpoints.string(body, "password"),
                    data: body["user_metadata"] == nil ? nil : try AuthEndpoints.metadata(body, "user_metadata"))
                return .json(200, user.json)
            }
        } catch let error as AuthError {
            throw .auth(error)
        } catch let error as ServerError {
            throw error
        } catch let error as StoreError {
            throw .auth(.storeFailed(error))
        } catch {
            throw .auth(.storeFailed(error))
        }
    }

    private func create(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        let body = try AuthEndpoints.object(exchange)
        guard let email = try AuthEndpoints.string(body, "email") else { throw .auth(.validation("email is required")) }
        let password = try AuthEndpoints.string(body, "password")
        let userMetadata = try AuthEndpoints.metadata(body, "user_metadata")
        // An import from Supabase keeps the user's id and password hash (GoTrue's `id`, `password_hash`).
        let imported = AuthService.Imported(id: try AuthEndpoints.string(body, "id"), passwordHash: try AuthEndpoints.string(body, "password_hash"))
        do {
            let user = try auth.createUser(
                email: email, password: password, userMetadata: userMetadata,
                appMetadata: body["app_metadata"]?.objectValue ?? [:], confirmed: body["email_confirm"]?.boolValue == true, imported: imported)
            return .json(200, user.json)
        } catch {
            throw .auth(error)
        }
    }

    private func requireServiceRole(_ exchange: Exchange) throws(ServerError) {
        try gateway.requireAPIKey(exchange)
        guard let token = gateway.bearer(exchange), let verified = try? auth.tokens.verify(token, now: auth.now()),
            verified.access.role == .serviceRole
        else { throw .auth(.notAdmin) }
    }
}

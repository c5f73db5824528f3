import Foundation
import SoarAuth
import SoarStore
import Testing

@testable import SoarServer
import SoarHTTP

/// What a client sees when the store is down: a 503 it retries, without the store's own words.
@Suite(.timeLimit(.minutes(5))) struct StoreFailureAnswerTests {
    static let down = StoreError.unavailable("cannot connect to Postgres: connection to server at \"10.0.0.5\", port 5432 failed: role \"app\"")

    @Test func theDataAPIAnswers503WithoutHostsOrRoles() {
        let answer = ServerError.store(Self.down, role: .authenticated).response(to: HTTPRequest(method: "GET", path: "/rest/v1/todos"))
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 503 && text.contains("XX000"))
        #expect(!text.contains("10.0.0.5") && !text.contains("app\\\""), "\(text)")
    }

    @Test func authAnswers503SoClientsRetryInsteadOfSigningOut() {
        let failure = AuthError.storeFailed(Self.down)
        #expect(failure.status == 503 && failure.code == "unexpected_failure")
        let text = String(decoding: ServerError.auth(failure).response(to: HTTPRequest(method: "POST", path: "/auth/v1/token")).body, as: UTF8.self)
        #expect(!text.contains("10.0.0.5"), "\(text)")
        #expect(AuthError.storeFailed(StoreError.notNull("email", table: "users")).status == 500, "a constraint the server broke is still a 500")
    }
}

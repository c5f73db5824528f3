import Foundation
import Testing

import SoarCore
@testable import SoarClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(5))) struct AppErrorTests {
    @Test(arguments: [
        (401, AppError.Code.authentication), (403, .authentication), (404, .notFound), (429, .rateLimited),
        (400, .validation), (409, .validation), (422, .validation), (408, .network), (500, .unknown), (503, .unknown),
    ])
    func mapsHTTPStatuses(status: Int, code: AppError.Code) {
        #expect(AppError(status: status).code == code)
    }

    @Test func offlineMessage() {
        let error = AppError.map(URLError(.notConnectedToInternet))
        #expect(error.code == .network)
        #expect(error.message.hasPrefix("You seem to be offline"))
        #expect(error.original is URLError)
        #expect(AppError.map(URLError(.timedOut)).code == .network)
    }

    @Test func supabaseAuthCodes() {
        #expect(AppError(authCode: "invalid_credentials").message == "Incorrect email or password")
        #expect(AppError(authCode: "over_request_rate_limit").code == .rateLimited)
        #expect(AppError(authCode: "something_new").code == .authentication)
        let body = Data(#"{"code":400,"error_code":"invalid_credentials","msg":"Invalid login credentials"}"#.utf8)
        let error = AppError(status: 400, body: body)
        #expect(error.code == .authentication && error.message == "Incorrect email or password")
    }

    @Test func postgrestBodies() {
        let none = Data(#"{"code":"PGRST116","message":"JSON object requested, multiple (or no) rows returned"}"#.utf8)
        #expect(AppError(status: 406, body: none).code == .notFound)
        let check = Data(#"{"code":"23514","message":"title must not be empty"}"#.utf8)
        #expect(AppError(status: 400, body: check) == .validation("title must not be empty"))
        #expect(AppError.map(HTTPFailure(status: 429, body: Data())).code == .rateLimited)
    }

    @Test func passesAppErrorsThroughAndWrapsTheRest() {
        struct Odd: Error {}
        #expect(AppError.map(AppError.validation("x")) == .validation("x"))
        let wrapped = AppError.map(Odd())
        #expect(wrapped.code == .unknown && wrapped.original is Odd)
    }
}

@Suite(.timeLimit(.minutes(5))) struct AppResultAndUiStateTests {
    @Test func catchingMapsErrors() async {
        let ok = await AppResult { 5 }
        #expect(ok == .success(5))
        let failed = await AppResult<Int> { throw URLError(.notConnectedToInternet) }
        #expect(failed.error?.code == .network)
        #expect(ok.map { $0 * 2 }.value == 10)
        #expect(ok.flatMap { _ in AppResult<Int>.failure(.notFound()) }.error == .notFound())
        #expect(throws: AppError.self) { try failed.get() }
    }

    @Test func emptyDataIsNotIdle() {
        let empty = UiState<[Int]>.data([])
        #expect(empty != .idle && empty.value == [])
        #expect(UiState(AppResult<[Int]>.failure(.network())) == .error(AppError.Messages.offline))
        #expect(UiState<[Int]>.loading.isLoading && !empty.isLoading)
        #expect(UiState<[Int]>.error("x").errorMessage == "x")
    }
}

@Suite(.timeLimit(.minutes(5))) struct ErrorTextTests {
    @Test func fileErrorsReadAsTheSystemsReasonNotFoundationsDomainDump() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("soar-errortext-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let blocker = directory.appendingPathComponent("file")
        try Data("x".utf8).write(to: blocker)
        do {
            // A directory cannot be made under a plain file.
            try FileManager.default.createDirectory(atPath: blocker.path + "/sub", withIntermediateDirectories: true)
            Issue.record("expected a failure")
        } catch {
            let text = ErrorText.describe(error)
            #expect(!text.contains("NSCocoaErrorDomain") && !text.isEmpty, "\(text)")
        }
        do {
            _ = try String(contentsOfFile: directory.appendingPathComponent("missing").path, encoding: .utf8)
        } catch {
            #expect(ErrorText.describe(error) == "No such file or directory")
        }
        struct Plain: Error, CustomStringConvertible { var description: String { "plain words" } }
        #expect(ErrorText.describe(Plain()) == "plain words")
    }
}

import Foundation
import Testing

@testable import SoarHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Stopping the HTTP server: a request in flight finishes, one that starts meanwhile is answered
/// 503, and nothing aborts the process (as libmicrohttpd's own quiesce could with a thread pool).
@Suite struct HTTPShutdownTests {
    func get(_ url: String) async throws -> (status: Int, body: String) {
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: url)))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// Waits for `semaphore` off the cooperative threads.
    func wait(_ semaphore: DispatchSemaphore) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                semaphore.wait()
                continuation.resume()
            }
        }
    }

    @Test func aRequestInFlightFinishesAndOneThatStartsMeanwhileIsAnswered503() async throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)
        let server = try HTTPServer { request in
            if request.path == "/slow" {
                entered.signal()
                release.wait()
            }
            return HTTPResponse(status: 200, body: Data("done".utf8))
        }
        // Whatever fails below, the slow request ends and the server stops.
        defer { release.signal() }
        let base = "http://127.0.0.1:\(server.port)"
        async let slow = get(base + "/slow")
        await wait(entered)
        // `shutdown` waits for the slow request: on a thread of its own, not a cooperative one.
        DispatchQueue.global().async {
            server.shutdown(grace: .seconds(20))
            stopped.signal()
        }
        while !server.draining.load(ordering: .acquiring) { await Task.yield() }
        let refused = try await get(base + "/fast")
        #expect(refused.status == 503, "a request that starts once shutdown began is refused")
        release.signal()
        let finished = try await slow
        #expect(finished.status == 200 && finished.body == "done", "the request in flight finished")
        await wait(stopped)
        #expect(server.requestsInFlight == 0)
    }
}

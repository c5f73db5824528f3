import Foundation
import SoarCore
import SoarStore
import SoarTesting
import Testing

@testable import SoarHTTP
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Stopping the HTTP server: a request in flight finishes, one that starts meanwhile is answered
/// 503, and nothing aborts the process (as libmicrohttpd's own quiesce could with a thread pool).
@Suite(.timeLimit(.minutes(5))) struct HTTPShutdownTests {
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

    @Test func anAnswerSentLaterFromAnotherThreadReachesTheClient() async throws {
        let server = try HTTPServer(deferringHandler: { request, later in
            guard request.path == "/later" else { return HTTPResponse(status: 200, body: Data("now".utf8)) }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                later.send { HTTPResponse(status: 201, body: Data("later".utf8)) }
            }
            return nil
        })
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.port)"
        async let first = get(base + "/later")
        async let second = get(base + "/now")
        let (later, now) = try await (first, second)
        #expect(later.status == 201 && later.body == "later")
        #expect(now.status == 200 && now.body == "now")
        #expect(eventually { server.requestsInFlight == 0 })
    }

    /// libmicrohttpd aborts the process when stopped with a connection suspended: an answer that
    /// never comes is answered 503 when the grace is over, and sending it afterwards does nothing.
    @Test func shutdownAnswers503ToARequestWhoseLaterAnswerNeverCame() async throws {
        let kept = Locked<LaterAnswer?>(nil)
        let server = try HTTPServer(deferringHandler: { _, later in
            kept.withLock { $0 = later }
            return nil
        })
        let base = "http://127.0.0.1:\(server.port)"
        async let waiting = get(base + "/never")
        while kept.withLock({ $0 }) == nil || server.requestsInFlight == 0 { await Task.yield() }
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.shutdown(grace: .milliseconds(50))
            stopped.signal()
        }
        #expect(try await waiting.status == 503)
        await wait(stopped)
        kept.withLock { $0 }?.send { HTTPResponse(status: 200) }
        #expect(server.requestsInFlight == 0)
    }

    /// `stop` without a grace (as `deinit` does) still sends the waiting request its 503.
    @Test func stopAnswers503ToARequestStillWaiting() async throws {
        let kept = Locked<LaterAnswer?>(nil)
        let server = try HTTPServer(deferringHandler: { _, later in
            kept.withLock { $0 = later }
            return nil
        })
        async let waiting = get("http://127.0.0.1:\(server.port)/never")
        while kept.withLock({ $0 }) == nil || server.requestsInFlight == 0 { await Task.yield() }
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.stop()
            stopped.signal()
        }
        #expect(try await waiting.status == 503)
        await wait(stopped)
        #expect(server.requestsInFlight == 0)
    }
}

import Foundation
import SoarHTTP2
import Testing

#if canImport(Glibc)
    import Glibc
#endif

private final class ClientEvents: H2ClientSessionDelegate {
    var goaway = false
    var refused: [Int32] = []
    func sessionReceivedSettings() {}
    func requestSent(stream: Int32) {}
    func streamEnded(stream: Int32, response: H2Response?, refused: Bool, errorCode: UInt32) { if refused { self.refused.append(stream) } }
    func goawayReceived(lastStreamID: Int32) { goaway = true }
    func pingAcknowledged() {}
}

private final class ServerEvents: H2ServerSessionDelegate {
    func requestReceived(_ request: H2Request, stream: Int32) {}
    func pingReceived() {}
    func responseSent(stream: Int32) {}
}

/// A client and a server session on the two ends of a socket pair, moved along by hand.
@Suite(.timeLimit(.minutes(5))) struct SessionTests {
    @Test func afterTheServersGoawayANewRequestIsRefusedAtOnceInsteadOfQueuedAndThenReset() throws {
        // nghttp2 would take it and then refuse its stream while sending; a caller that puts every
        // refused request straight back on the same connection then loops.
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &ends) == 0)
        defer { ends.forEach { _ = close($0) } }
        let clientEvents = ClientEvents()
        let client = try H2ClientSession(fd: ends[0], tls: nil, settings: [], delegate: clientEvents)
        let server = try H2ServerSession(fd: ends[1], tls: nil, settings: [.maxConcurrentStreams(10)], delegate: ServerEvents())
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        func exchange() {
            for _ in 0..<3 {
                _ = client.send()
                _ = server.wire.send()
                _ = server.wire.receive(using: &buffer)
                _ = client.wire.receive(using: &buffer)
            }
        }
        exchange()
        try server.goAway(lastStreamID: 0)
        exchange()
        #expect(clientEvents.goaway)
        #expect {
            _ = try client.request(body: Data()) { block in
                block.add(":method", "POST")
                block.add(":scheme", "http")
                block.add(":authority", "test")
                block.add(":path", "/")
            }
        } throws: { ($0 as? H2Error)?.takesNoNewStreams == true }
        exchange()
        #expect(clientEvents.refused.isEmpty, "nothing was queued to be refused")
    }
}

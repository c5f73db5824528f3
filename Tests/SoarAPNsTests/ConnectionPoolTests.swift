import SoarHTTP2
import Testing

@testable import SoarAPNs

/// The pooling state machine, driven by hand: no sockets, no clock.
@Suite(.timeLimit(.minutes(5))) struct ConnectionPoolTests {
    typealias Action = ConnectionPool.Action
    static let addressA = ResolvedAddress(family: 2, bytes: [1])
    static let addressB = ResolvedAddress(family: 2, bytes: [2])

    func pool(connections: Int = 4, streams: Int = 1000) -> ConnectionPool {
        ConnectionPool(.init(maxConnections: connections, maxStreamsPerConnection: streams, timeout: 30_000,
                             connectTimeout: 10_000, pingInterval: 60_000, authority: "apns:443"))
    }

    func failures(_ actions: [Action]) -> [UInt64: TransportError] {
        var failed: [UInt64: TransportError] = [:]
        for case .fail(let id, let error) in actions { failed[id] = error }
        return failed
    }

    /// A ready connection 1 with the given stream limit.
    func ready(_ pool: inout ConnectionPool, limit: Int = 100, now: UInt64 = 0) {
        #expect(pool.enqueue(0, now: now) == [.resolve])
        #expect(pool.resolved(.success([Self.addressA]), now: now) == [.connect(1, Self.addressA)])
        pool.tcpConnected(1)
        #expect(pool.settingsReceived(1, streamLimit: limit, now: now) == [.send(0, on: 1)])
        _ = pool.requestEnded(0, on: 1, now: now)
    }

    @Test func whenTheHostCannotBeReachedEveryQueuedRequestFailsAtOnce() {
        // The reported hang: two requests, one connection of one stream, an unreachable host.
        var pool = pool(connections: 1, streams: 1)
        #expect(pool.enqueue(1, now: 0) == [.resolve])
        #expect(pool.enqueue(2, now: 0) == [])
        let refused = TransportError(.unreachable, "cannot connect to apns:443: Connection refused")
        #expect(pool.resolved(.success([Self.addressA]), now: 1) == [.connect(1, Self.addressA)])
        let actions = pool.connectionFailed(1, refused, now: 2)
        #expect(failures(actions) == [1: refused, 2: refused])
        #expect(pool.waitingCount == 0 && pool.connectionCount == 0)
        // A retry after the hold-down starts over.
        #expect(pool.enqueue(3, now: 1_500) == [.resolve])
        #expect(failures(pool.resolved(.failure(TransportError(.unreachable, "no such host")), now: 1_501)) == [3: TransportError(.unreachable, "no such host")])
    }

    @Test func aConnectionThatFailsBeforeItIsReadyTriesTheNextAddress() {
        var pool = pool()
        _ = pool.enqueue(1, now: 0)
        #expect(pool.resolved(.success([Self.addressA, Self.addressB]), now: 0) == [.connect(1, Self.addressA)])
        #expect(pool.connectionFailed(1, TransportError(.unreachable, "refused"), now: 1) == [.connect(2, Self.addressB)])
        #expect(pool.settingsReceived(2, streamLimit: 1, now: 2) == [.send(1, on: 2)])
    }

    @Test func aBadCertificateFailsWithoutTryingOtherAddresses() {
        var pool = pool()
        _ = pool.enqueue(1, now: 0)
        _ = pool.resolved(.success([Self.addressA, Self.addressB]), now: 0)
        let bad = TransportError(.misconfigured, "certificate verification failed")
        #expect(failures(pool.connectionFailed(1, bad, now: 1)) == [1: bad])
    }

    @Test func streamsAreGivenOnlyWithinTheServersLimitAndOursAndNeverBeforeItsSettings() {
        var pool = pool(connections: 1, streams: 2)
        _ = pool.enqueue(1, now: 0)
        for id in 2...4 { #expect(pool.enqueue(UInt64(id), now: 0) == []) }
        _ = pool.resolved(.success([Self.addressA]), now: 0)
        pool.tcpConnected(1)
        #expect(pool.settingsReceived(1, streamLimit: 1, now: 0) == [.send(1, on: 1)], "APNs' 1 until a first success")
        #expect(pool.requestEnded(1, on: 1, now: 1) == [.send(2, on: 1)])
        #expect(pool.settingsReceived(1, streamLimit: 1000, now: 1) == [.send(3, on: 1)], "our own cap is 2")
        #expect(pool.inFlightCount == 2 && pool.waitingCount == 1)
    }

    @Test func refusedRequestsGoAgainFirstAndGoawayOpensAnotherConnection() {
        var pool = pool()
        ready(&pool)
        #expect(pool.enqueue(1, now: 0) == [.send(1, on: 1)])
        #expect(pool.enqueue(2, now: 0) == [.send(2, on: 1)])
        pool.requestSent(1, on: 1)
        pool.requestSent(2, on: 1)
        #expect(pool.goawayReceived(1, now: 1) == [])
        // Past GOAWAY's last stream: refused unprocessed, so it waits for the next connection.
        #expect(pool.requestRefused(2, on: 1, now: 1) == [.resolve])
        #expect(pool.requestEnded(1, on: 1, now: 2) == [.close(1)], "a drained connection closes")
        _ = pool.resolved(.success([Self.addressA]), now: 3)
        #expect(pool.settingsReceived(2, streamLimit: 10, now: 3) == [.send(2, on: 2)])
    }

    @Test func aLostConnectionFailsWhatLeftAsPossiblyDeliveredAndSendsTheRestAgain() {
        var pool = pool()
        ready(&pool)
        _ = pool.enqueue(1, now: 0)
        _ = pool.enqueue(2, now: 0)
        pool.requestSent(1, on: 1)
        let actions = pool.connectionFailed(1, TransportError(.unreachable, "connection reset"), now: 1)
        #expect(failures(actions)[1]?.kind == .answerLost && failures(actions)[1]?.mayHaveBeenDelivered == true)
        #expect(failures(actions)[2] == nil, "never left: sent again")
        #expect(actions.contains(.resolve) && pool.waitingCount == 1)
    }

    @Test func anOverdueAnswerFailsAsTimedOutAndClosesTheStalledConnection() {
        var pool = pool()
        ready(&pool)
        _ = pool.enqueue(1, now: 1000)
        _ = pool.enqueue(2, now: 20_000)
        _ = pool.enqueue(3, now: 20_000)
        pool.requestSent(1, on: 1)
        pool.requestSent(2, on: 1)
        #expect(pool.tick(now: 30_999) == [])
        let actions = pool.tick(now: 31_000)
        #expect(failures(actions)[1]?.kind == .timedOut)
        #expect(actions.contains(.close(1)), "the stalled connection does not take the next requests")
        #expect(failures(actions)[2]?.mayHaveBeenDelivered == true, "it had left on the stalled connection")
        #expect(failures(actions)[3] == nil && actions.contains(.resolve), "it never left: it goes on a new connection")
    }

    @Test func whileAServerIsDownNewRequestsFailAtOnceForTheHoldDown() {
        var pool = pool()
        _ = pool.enqueue(1, now: 0)
        _ = pool.resolved(.success([Self.addressA]), now: 0)
        let refused = TransportError(.unreachable, "refused")
        #expect(failures(pool.connectionFailed(1, refused, now: 10)) == [1: refused])
        #expect(pool.enqueue(2, now: 500) == [.fail(2, refused)], "no new connection attempt per request")
        #expect(pool.enqueue(3, now: 1_010) == [.resolve], "after the hold-down it tries again")
    }

    @Test func aConnectionThatTookTCPAndNeverSpokeHTTP2IsMisconfiguredUntilOneHasWorked() {
        var pool = pool()
        _ = pool.enqueue(1, now: 0)
        _ = pool.resolved(.success([Self.addressA]), now: 0)
        pool.tcpConnected(1)
        let reset = TransportError(.unreachable, "apns:443 closed the connection during the TLS handshake")
        #expect(failures(pool.connectionFailed(1, reset, now: 1))[1]?.kind == .misconfigured)
    }

    @Test func aConnectionOutOfStreamIDsIsNotHandedTheRequestAgain() {
        var pool = pool(connections: 2)
        ready(&pool)
        _ = pool.enqueue(1, now: 0)
        #expect(pool.goawayReceived(1, now: 1) == [])
        let actions = pool.requestRefused(1, on: 1, now: 1)
        #expect(!actions.contains(.send(1, on: 1)) && actions.contains(.resolve))
    }

    @Test func aRequestRefusedAgainAndAgainFailsUndeliveredInsteadOfBouncingUntilItsDeadline() {
        // A server (or a closing session) that refuses every stream once kept the loop spinning.
        var pool = pool()
        ready(&pool)
        #expect(pool.enqueue(1, now: 0) == [.send(1, on: 1)])
        for _ in 1..<ConnectionPool.maxRefusals {
            #expect(pool.requestRefused(1, on: 1, now: 1) == [.send(1, on: 1)], "refused unprocessed: straight back")
        }
        let failure = failures(pool.requestRefused(1, on: 1, now: 1))[1]
        #expect(failure?.kind == .unreachable && failure?.mayHaveBeenDelivered == false)
        #expect(failure?.message.contains("REFUSED_STREAM") == true)
        #expect(pool.inFlightCount == 0)
    }

    @Test func refusalsByAConnectionGoingAwayDoNotCountAgainstTheRequest() {
        // GOAWAY after GOAWAY: the request moves each time, and never fails for it.
        var pool = pool()
        ready(&pool)
        #expect(pool.enqueue(1, now: 0) == [.send(1, on: 1)])
        _ = pool.goawayReceived(1, now: 1)
        let actions = pool.requestRefused(1, on: 1, now: 1)
        #expect(failures(actions).isEmpty && actions.contains(.resolve), "\(actions)")
    }

    @Test func anIdleConnectionIsPingedAndClosedWhenThePingGoesUnanswered() {
        var pool = pool()
        ready(&pool)
        #expect(pool.nextWakeup(now: 0) == 60_000)
        #expect(pool.tick(now: 60_000) == [.ping(1)])
        pool.pingAnswered(1, now: 60_010)
        #expect(pool.tick(now: 120_010) == [.ping(1)])
        #expect(pool.tick(now: 150_010) == [.close(1)])
        #expect(pool.connectionCount == 0)
    }

    @Test func aServerThatTakesTCPButNeverSpeaksHTTP2IsMisconfiguredUntilOneHasWorked() {
        var pool = pool()
        _ = pool.enqueue(1, now: 0)
        _ = pool.resolved(.success([Self.addressA]), now: 0)
        pool.tcpConnected(1)
        let actions = pool.tick(now: 10_000)
        #expect(actions.first == .close(1))
        #expect(failures(actions)[1]?.kind == .misconfigured)
        #expect(failures(actions)[1]?.message.contains("did not complete TLS and HTTP/2 within 10 s") == true)
    }

    @Test func aTimestampLaterThanTheTurnsClockDoesNotUnderflow() {
        var pool = pool()
        _ = pool.enqueue(1, now: 5_000)
        _ = pool.resolved(.success([Self.addressA]), now: 5_000)
        // The clock read for this turn is older than the connection's opening time.
        #expect(pool.tick(now: 4_000) == [])
        #expect(pool.connectionCount == 1)
    }

    @Test func requestsThatNeverGetAStreamFailWithTheLastReason() {
        var pool = pool(connections: 1)
        _ = pool.enqueue(1, now: 0)
        _ = pool.resolved(.success([Self.addressA]), now: 0)
        let actions = pool.tick(now: 30_000)
        #expect(failures(actions)[1]?.kind == .unreachable)
    }

    @Test func shutdownFailsEverythingAndLaterRequestsAtOnce() {
        var pool = pool()
        ready(&pool)
        _ = pool.enqueue(1, now: 0)
        _ = pool.enqueue(2, now: 0)
        let actions = pool.shutdown()
        #expect(failures(actions) == [1: .shutDown, 2: .shutDown])
        #expect(actions.contains(.close(1)))
        #expect(pool.enqueue(3, now: 1) == [.fail(3, .shutDown)])
        #expect(pool.nextWakeup(now: 1) == nil)
    }
}

import Dispatch
import Foundation
import SoarCore

/// Connections waiting for a request's headers or its body, and since when. Twice a second, those
/// that waited longer than their limit are shut down (libmicrohttpd then sees the end of the
/// stream and closes them), so a client that sends a request a byte at a time cannot hold a
/// connection: libmicrohttpd's own idle timer starts over at every byte.
/// (Unchecked: its timer is set up once and only cancelled after.)
final class RequestDeadlines: @unchecked Sendable {
    private struct Waiting: Sendable {
        let socket: Int32
        /// When it is cut off.
        let deadline: ContinuousClock.Instant
    }

    private let limit: Duration
    private let bodyLimit: Duration
    /// By connection (its address): entries leave when libmicrohttpd says it closed, before it
    /// closes the socket, so a socket shut down here is never another connection's. In shards by
    /// address, so that libmicrohttpd's threads, which each touch them three times a request,
    /// seldom wait for one another.
    private let shards = (0..<16).map { _ in Locked([UInt: Waiting]()) }
    private let sweeps: DispatchSourceTimer

    init(limit: Duration, bodyLimit: Duration) {
        self.limit = limit
        self.bodyLimit = bodyLimit
        sweeps = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "soar.http.deadlines"))
        sweeps.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(500))
        sweeps.setEventHandler { [shards] in
            let now = ContinuousClock.now
            for shard in shards {
                shard.withLock { waiting in
                    for (connection, entry) in waiting where now > entry.deadline {
                        shutdown(entry.socket, Int32(SHUT_RDWR))
                        waiting[connection] = nil
                    }
                }
            }
        }
        sweeps.resume()
    }

    /// The connection waits for a request's headers from now (it opened, or its answer was sent).
    func waitForHeaders(_ connection: OpaquePointer, socket: Int32) {
        guard socket >= 0 else { return }
        shard(connection).withLock { $0[UInt(bitPattern: connection)] = Waiting(socket: socket, deadline: .now + limit) }
    }

    /// Its headers are in and a body follows: the whole body must come within the body limit.
    func waitForBody(_ connection: OpaquePointer, socket: Int32) {
        guard socket >= 0 else { return }
        shard(connection).withLock { $0[UInt(bitPattern: connection)] = Waiting(socket: socket, deadline: .now + bodyLimit) }
    }

    /// Its headers are late now: the next sweep shuts it down unless they arrive first.
    func expire(_ connection: OpaquePointer) {
        shard(connection).withLock { waiting in
            let key = UInt(bitPattern: connection)
            if let entry = waiting[key] { waiting[key] = Waiting(socket: entry.socket, deadline: .now - .seconds(1)) }
        }
    }

    /// Its headers (or its whole body) arrived: no deadline until it waits again.
    func arrived(_ connection: OpaquePointer) {
        _ = shard(connection).withLock { $0.removeValue(forKey: UInt(bitPattern: connection)) }
    }

    /// A connection's shard: by its address, past the bits allocation alignment keeps at zero.
    private func shard(_ connection: OpaquePointer) -> Locked<[UInt: Waiting]> {
        shards[Int((UInt(bitPattern: connection) >> 6) % UInt(shards.count))]
    }

    func closed(_ connection: OpaquePointer) { arrived(connection) }

    func stop() { sweeps.cancel() }
}

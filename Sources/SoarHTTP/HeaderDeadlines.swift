import Dispatch
import Foundation
import SoarCore

/// Connections waiting for a request's headers, and since when. Twice a second, those that waited
/// longer than the limit are shut down (libmicrohttpd then sees the end of the stream and closes
/// them), so a client that sends its headers a line at a time cannot hold a connection.
/// (Unchecked: its timer is set up once and only cancelled after.)
final class HeaderDeadlines: @unchecked Sendable {
    private struct Waiting: Sendable {
        let socket: Int32
        let since: ContinuousClock.Instant
    }

    private let limit: Duration
    /// By connection (its address): entries leave when libmicrohttpd says it closed, before it
    /// closes the socket, so a socket shut down here is never another connection's.
    private let waiting = Locked([UInt: Waiting]())
    private let sweeps: DispatchSourceTimer

    init(limit: Duration) {
        self.limit = limit
        sweeps = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "soar.http.deadlines"))
        sweeps.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(500))
        sweeps.setEventHandler { [waiting, limit] in
            let now = ContinuousClock.now
            waiting.withLock { waiting in
                for (connection, entry) in waiting where now - entry.since > limit {
                    shutdown(entry.socket, Int32(SHUT_RDWR))
                    waiting[connection] = nil
                }
            }
        }
        sweeps.resume()
    }

    /// The connection waits for a request's headers from now (it opened, or its answer was sent).
    func waitForHeaders(_ connection: OpaquePointer, socket: Int32) {
        guard socket >= 0 else { return }
        waiting.withLock { $0[UInt(bitPattern: connection)] = Waiting(socket: socket, since: .now) }
    }

    /// Its headers are late now: the next sweep shuts it down unless they arrive first.
    func expire(_ connection: OpaquePointer) {
        waiting.withLock { waiting in
            let key = UInt(bitPattern: connection)
            if let entry = waiting[key] { waiting[key] = Waiting(socket: entry.socket, since: .now - limit - .seconds(1)) }
        }
    }

    func headersArrived(_ connection: OpaquePointer) {
        _ = waiting.withLock { $0.removeValue(forKey: UInt(bitPattern: connection)) }
    }

    func closed(_ connection: OpaquePointer) { headersArrived(connection) }

    func stop() { sweeps.cancel() }
}

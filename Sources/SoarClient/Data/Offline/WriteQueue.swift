import Foundation
import SoarCore

/// Writes made while offline, kept on disk and replayed in order when the server is back.
///
/// A write is sent at once when nothing waits before it; otherwise, or when the server cannot be
/// reached, it joins the queue, so writes always reach the server in the order they were made. A
/// write the server refuses on replay (a conflict, a broken rule) is taken out and reported
/// through ``rejections()`` and ``rejected``, never dropped silently; an unreachable server, a 5xx,
/// 408, 429 or an expired session stop the replay and keep the rest for the next one.
public actor WriteQueue {
    private let file: URL
    private let client: SupabaseClient
    private var queue: [PendingWrite]
    private let events = Broadcast<RejectedWrite>()
    private var replaying = false
    /// Writes refused on replay, until ``acknowledgeRejections()``.
    public private(set) var rejected: [RejectedWrite] = []

    /// - Parameter file: where the queue is kept (created when needed).
    public init(file: URL, client: SupabaseClient) {
        self.file = file
        self.client = client
        queue = (try? Data(contentsOf: file)).flatMap { try? JSONCoding.decode([PendingWrite].self, from: $0) } ?? []
    }

    /// The writes still waiting, oldest first.
    public var pending: [PendingWrite] { queue }

    /// Refused writes as they happen.
    public func rejections() -> AsyncStream<RejectedWrite> { events.stream() }

    public func acknowledgeRejections() { rejected = [] }

    /// Sends a write, or keeps it for later when the server cannot be reached or earlier writes wait.
    ///
    /// - Returns: true when the server took it, false when it was queued.
    /// - Throws: ``AppError`` when the server refused it (nothing is queued then).
    @discardableResult
    public func submit(_ query: Query) async throws(AppError) -> Bool {
        let write = try query.pendingWrite
        if queue.isEmpty {
            do {
                try await client.send(write)
                return true
            } catch where Self.isRetryable(error) {
                // Fall through to queue it.
            }
        }
        queue.append(write)
        save()
        await replay()
        return !queue.contains { $0.id == write.id }
    }

    /// Sends the queued writes in order until one cannot be delivered.
    ///
    /// - Returns: how many the server took.
    @discardableResult
    public func replay() async -> Int {
        guard !replaying else { return 0 }
        replaying = true
        defer { replaying = false }
        var sent = 0
        while let write = queue.first {
            do {
                try await client.send(write)
                sent += 1
            } catch where Self.isRetryable(error) {
                return sent
            } catch {
                let rejection = RejectedWrite(write: write, error: error)
                rejected.append(rejection)
                events.yield(rejection)
            }
            queue.removeFirst()
            save()
        }
        return sent
    }

    /// Replays whenever the monitor reports the network back, until the task is cancelled.
    public func replay(whenOnline network: any NetworkMonitoring) -> Task<Void, Never> {
        Task {
            for await online in network.updates() where online {
                await self.replay()
            }
        }
    }

    private static func isRetryable(_ error: AppError) -> Bool {
        guard let status = error.status else { return error.code == .network || error.code == .authentication }
        return status >= 500 || status == 401 || status == 408 || status == 429
    }

    private func save() {
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let data = try? JSONCoding.encode(queue) { try? data.write(to: file, options: .atomic) }
    }
}

import Foundation
import SoarCore

/// Writes made while offline, kept on disk and replayed in order when the server is back.
///
/// Every write joins the queue and the queue is sent one write at a time, oldest first, so writes
/// reach the server in the order they were made even when several are submitted at once. A write
/// with nothing before it is sent at once, and a refusal is thrown to its caller. A write that
/// waited and is refused on replay (a conflict, a broken rule, a row deleted elsewhere) is taken
/// out and reported through ``rejections()`` and ``rejected``, never dropped silently. An
/// unreachable server, a 5xx, 408, 429 or 401 stops the replay and keeps the rest for the next
/// one; so does a write made by a user other than the one signed in, until that user is back.
public actor WriteQueue {
    private let file: URL
    private let client: Soar
    private var queue: [PendingWrite]
    private let events = Broadcast<RejectedWrite>()
    private var tail: Task<Void, Never>?
    /// Writes sent at once, whose refusal goes to their caller rather than to ``rejected``.
    private var direct: Set<UUID> = []
    private var directRefusals: [UUID: AppError] = [:]
    /// Writes refused on replay, until ``acknowledgeRejections()``.
    public private(set) var rejected: [RejectedWrite] = []
    /// Where an unreadable queue file was moved, kept for inspection instead of overwritten.
    public private(set) var damagedFile: URL?

    /// - Parameter file: where the queue is kept (created when needed).
    public init(file: URL, client: Soar) {
        self.file = file
        self.client = client
        queue = []
        if let data = try? Data(contentsOf: file) {
            if let saved = try? JSONCoding.decode([PendingWrite].self, from: data) {
                queue = saved
            } else {
                let aside = file.appendingPathExtension("damaged-\(Int(Date().timeIntervalSince1970))")
                try? FileManager.default.moveItem(at: file, to: aside)
                damagedFile = aside
            }
        }
    }

    /// The writes still waiting, oldest first.
    public var pending: [PendingWrite] { queue }

    /// Refused writes as they happen.
    public func rejections() -> AsyncStream<RejectedWrite> { events.stream() }

    public func acknowledgeRejections() { rejected = [] }

    /// Sends a write, or keeps it for later when the server cannot be reached or earlier writes wait.
    ///
    /// - Returns: true when the server took it, false when it was queued.
    /// - Throws: ``AppError`` when the server refused a write that was sent at once (nothing is
    ///   queued then).
    @discardableResult
    public func submit(_ query: Query) async throws(AppError) -> Bool {
        var write = try query.pendingWrite
        write.userId = client.auth.currentUser?.id
        if queue.isEmpty { direct.insert(write.id) }
        queue.append(write)
        save()
        await replay()
        direct.remove(write.id)
        if let refusal = directRefusals.removeValue(forKey: write.id) { throw refusal }
        return !queue.contains { $0.id == write.id }
    }

    /// Sends the queued writes in order until one cannot be delivered.
    ///
    /// - Returns: how many the server took.
    @discardableResult
    public func replay() async -> Int {
        let previous = tail
        let task = Task { await previous?.value; return await self.drain() }
        tail = Task { _ = await task.value }
        return await task.value
    }

    /// Replays whenever the monitor reports the network back, until the task is cancelled.
    public func replay(whenOnline network: any NetworkMonitoring) -> Task<Void, Never> {
        Task {
            for await online in network.updates() where online {
                await self.replay()
            }
        }
    }

    private func drain() async -> Int {
        var sent = 0
        while let write = queue.first {
            if let owner = write.userId, client.auth.currentUser?.id != owner { return sent }
            do {
                try await client.send(write)
                sent += 1
            } catch where Self.isRetryable(error) {
                return sent
            } catch {
                if direct.contains(write.id) {
                    directRefusals[write.id] = error
                } else {
                    let rejection = RejectedWrite(write: write, error: error)
                    rejected.append(rejection)
                    events.yield(rejection)
                }
            }
            queue.removeFirst()
            save()
        }
        return sent
    }

    private static func isRetryable(_ error: AppError) -> Bool {
        guard let status = error.status else { return error.code == .network || error.code == .authentication }
        return status >= 500 || status == 401 || status == 408 || status == 429
    }

    private func save() {
        if let data = try? JSONCoding.encode(queue) { try? PrivateFile.write(data, to: file) }
    }
}

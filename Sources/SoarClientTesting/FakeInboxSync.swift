import Foundation
import SoarClient
import Synchronization

/// A server inbox in memory: the entries it serves and the reads and opens reported to it.
public final class FakeInboxSync: InboxSyncing {
    private let state = Locked<(entries: [InboxEntry], reads: [String], opens: [String])>(([], [], []))

    public init(_ entries: [InboxEntry] = []) {
        state.withLock { $0.entries = entries }
    }

    public var reads: [String] { state.withLock { $0.reads } }
    public var opens: [String] { state.withLock { $0.opens } }

    public func fetch() async throws(AppError) -> [InboxEntry] { state.withLock { $0.entries } }
    public func markRead(_ id: String, at date: Date) async throws(AppError) { state.withLock { $0.reads.append(id) } }
    public func markOpened(_ id: String, at date: Date) async throws(AppError) { state.withLock { $0.opens.append(id) } }
}

import Foundation
import Synchronization

/// Copies the WAL back into the database file on a queue of its own, never on the writer.
///
/// A checkpoint copies megabytes into the file; done by the committing writer (SQLite's default),
/// it held every write waiting behind it as long: 40% of the time to store a large send, measured
/// straight through SQLite. The writer's commits report the WAL's size here instead, and past
/// `threshold` pages one PASSIVE checkpoint is queued, which neither waits for nor blocks readers
/// or the writer. Once it has copied everything, the writer starts the WAL over at its next commit.
final class Checkpointer: @unchecked Sendable {
    /// SQLite's own threshold for its automatic checkpoints.
    static let threshold = 1_000

    /// Used on `queue` only.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "soar.sqlite.checkpoint")
    private let queued = Atomic(false)

    init(path: String) throws(StoreError) {
        connection = try SQLiteConnection(path: path, readOnly: false)
    }

    /// After each commit of the writer, with the WAL's size in pages.
    func committed(walPages: Int) {
        guard walPages >= Self.threshold, !queued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            queued.store(false, ordering: .releasing)
            // A checkpoint that fails (the disk full, say) is tried again after a later commit.
            try? connection.checkpoint()
        }
    }
}

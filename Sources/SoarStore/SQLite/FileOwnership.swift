import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One process owns a SQLite file (its push workers keep their job claims in memory): an
/// exclusive `flock` on the file, held while any store of this process has it open. SQLite's own
/// locks are `fcntl` locks, which `flock` never meets. Stores of one process share the claim (a
/// test reopening the file, say); another process is refused.
final class FileOwnership: Sendable {
    private struct Key: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// The files this process owns: each one's locked descriptor and how many stores hold it.
    private static let owned = Locked<[Key: (descriptor: Int32, stores: Int)]>([:])
    private let key: Key

    /// Claims `path`, creating it readable by its owner only (it holds password hashes).
    ///
    /// - Throws: ``StoreError`` when another process owns it, or it cannot be opened.
    init(path: String) throws(StoreError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unavailable("cannot open the database \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw .unavailable("cannot open the database \(path): \(String(cString: strerror(errno)))")
        }
        key = Key(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        let refused: String? = Self.owned.withLock { owned in
            if owned[key] != nil {
                owned[key]!.stores += 1
                close(descriptor)
                return nil
            }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let reason = errno == EWOULDBLOCK
                    ? "\(path) is in use by another soar process: one process owns a SQLite file (several servers share a Postgres database instead)"
                    : "cannot lock the database \(path): \(String(cString: strerror(errno)))"
                close(descriptor)
                return reason
            }
            owned[key] = (descriptor, 1)
            return nil
        }
        if let refused { throw .unavailable(refused) }
    }

    deinit {
        Self.owned.withLock { owned in
            guard let entry = owned[key] else { return }
            if entry.stores > 1 {
                owned[key]!.stores -= 1
            } else {
                owned[key] = nil
                close(entry.descriptor)
            }
        }
    }
}

import Foundation
import SoarCore

#if canImport(Glibc)
    import Glibc
#endif

/// One process owns a SQLite file (its push workers keep their job claims in memory): an
/// exclusive `flock` on `<file>.lock` beside it, held while any store of this process has the
/// file open. The lock is on a file of its own, never the database: a second descriptor on the
/// database, once closed, would drop SQLite's own fcntl locks (and on NFS or SMB, flock is an
/// fcntl lock that would meet SQLite's). Stores of one process share the claim (a test reopening
/// the file, say); another process is refused.
final class FileOwnership: Sendable {
    private struct Key: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    /// The lock files this process holds: each one's locked descriptor and how many stores hold it.
    private static let owned = Locked<[Key: (descriptor: Int32, stores: Int)]>([:])
    private let key: Key

    /// Claims `path`, first creating the database readable by its owner only (it holds password
    /// hashes) when it does not exist yet.
    ///
    /// - Throws: ``StoreError`` when another process owns it, or its lock cannot be taken.
    init(path: String) throws(StoreError) {
        // Created only when new (O_EXCL): no descriptor is ever opened on a file SQLite may hold.
        let created = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if created >= 0 { close(created) }
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unavailable("cannot open the database \(path): cannot create \(lockPath): \(String(cString: strerror(errno)))") }
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

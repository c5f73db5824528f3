import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Version-4 UUIDs from the system's random source, drawn 4 KB at a time.
///
/// Foundation's `UUID()` opens and reads /dev/urandom for every id on Linux: three system calls
/// per notification on the hot path. This asks the kernel (glibc's `arc4random_buf`) once per 256 ids.
enum RandomUUID {
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var used = 4096
    }

    private static let pool = Mutex(Pool())

    static func make() -> UUID {
        var raw: uuid_t = pool.withLock { pool in
            if pool.used == pool.bytes.count {
                pool.bytes.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
                pool.used = 0
            }
            defer { pool.used += 16 }
            return pool.bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: pool.used, as: uuid_t.self) }
        }
        raw.6 = (raw.6 & 0x0F) | 0x40  // version 4
        raw.8 = (raw.8 & 0x3F) | 0x80  // RFC 4122 variant
        return UUID(uuid: raw)
    }
}

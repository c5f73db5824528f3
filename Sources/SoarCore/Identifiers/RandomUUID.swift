import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Version-4 UUIDs from the system's random source, drawn 4 KB at a time.
///
/// Foundation's `UUID()` opens and reads /dev/urandom for every id on Linux: three system calls
/// per notification on the hot path. This asks the kernel (glibc's `arc4random_buf`) once per 256 ids.
public enum RandomUUID {
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var used = 4096
    }

    private static let pool = Locked(Pool())

    public static func make() -> UUID {
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

    /// A version-7 UUID: the Unix time in milliseconds, then random bits. Ids made one after the
    /// other sort together, so a table keyed by them grows at one end of its index instead of
    /// touching a random page for each row.
    public static func timeOrdered(now: Date = Date()) -> UUID {
        var raw = make().uuid
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        withUnsafeMutableBytes(of: &raw) { bytes in
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - UInt64(index)))) }
            bytes[6] = (bytes[6] & 0x0F) | 0x70  // version 7
        }
        return UUID(uuid: raw)
    }

    /// A new id as APNs writes it: lowercase 8-4-4-4-12 hex.
    public static func lowercase() -> String { text(make()) }

    /// Lowercase 8-4-4-4-12 hex, without `uuidString`'s uppercase copy.
    public static func text(_ uuid: UUID) -> String {
        let digits = Hex.digits
        return withUnsafeBytes(of: uuid.uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { out in
                var position = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digits[Int(byte >> 4)]
                    out[position + 1] = digits[Int(byte & 0xF)]
                    position += 2
                }
                return position
            }
        }
    }

    /// The UUID that 8-4-4-4-12 hex text (either case) spells, read byte by byte; anything else
    /// is nil. Foundation's `UUID(uuidString:)` runs `sscanf` for each one, and so also takes
    /// signs, spaces and `0x` inside the groups.
    public static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { bytes -> UUID? in
            guard bytes.count == 36 else { return nil }
            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let parsed = withUnsafeMutableBytes(of: &raw) { out -> Bool in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        guard bytes[position] == UInt8(ascii: "-") else { return false }
                        position += 1
                    }
                    guard let high = Hex.value(bytes[position]), let low = Hex.value(bytes[position + 1]) else { return false }
                    out[index] = high << 4 | low
                    position += 2
                }
                return true
            }
            return parsed ? UUID(uuid: raw) : nil
        }
    }
}

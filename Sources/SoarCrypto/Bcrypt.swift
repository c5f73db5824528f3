import CCrypt
import Foundation

/// bcrypt hashes (`$2a$`, `$2b$`, `$2y$`), as GoTrue stores them, checked by libxcrypt: Soar makes
/// none, but users imported from Supabase keep theirs until their next sign-in.
public enum Bcrypt {
    /// Whether `stored` is a bcrypt hash this checks (cost at most 15: a stored hash cannot ask
    /// for minutes of work).
    public static func recognizes(_ stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, ["2a", "2b", "2y"].contains(parts[1]), let cost = Int(parts[2]) else { return false }
        return (4...15).contains(cost) && parts[3].count == 53
    }

    /// Whether `password` made `stored`, compared in constant time.
    public static func verify(_ password: String, against stored: String) -> Bool {
        guard recognizes(stored) else { return false }
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer { data.deallocate() }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        guard let made = crypt_rn(password, stored, data, Int32(MemoryLayout<crypt_data>.size)) else { return false }
        return constantTimeEquals(Data(String(cString: made).utf8), Data(stored.utf8))
    }
}

import Foundation

/// The process's open-file limit, which caps its connections.
enum DescriptorLimit {
    /// Raises the soft limit to the hard one (as a server should: each connection is a descriptor).
    ///
    /// - Returns: the soft limit now.
    static func raised() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var wanted = limit
            wanted.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &wanted) == 0 { limit = wanted }
        }
        return Int(min(limit.rlim_cur, rlim_t(Int32.max)))
    }
}

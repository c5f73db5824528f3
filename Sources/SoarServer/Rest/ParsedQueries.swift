import SoarCore
import SoarStore

/// Reads' queries as ``QueryParser`` left them, by table and request string, for one schema
/// version: a new version empties it. Read the version before the tables a query is parsed
/// against, so that a query is never kept under a version newer than its tables.
final class ParsedQueries: Sendable {
    private let state = Locked<(version: Int, queries: [String: RowQuery])>((0, [:]))
    private static let most = 1024

    func query(_ key: String, version: Int) -> RowQuery? {
        state.withLock { $0.version == version ? $0.queries[key] : nil }
    }

    func keep(_ query: RowQuery, _ key: String, version: Int) {
        state.withLock { state in
            if state.version != version {
                // A query parsed under an older version than the one kept is not kept.
                guard version > state.version else { return }
                state = (version, [:])
            }
            if state.queries.count >= Self.most { state.queries.removeAll() }
            state.queries[key] = query
        }
    }
}

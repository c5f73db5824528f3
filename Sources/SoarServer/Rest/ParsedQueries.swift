import SoarCore
import SoarStore

/// Reads' queries as ``QueryParser`` left them, by their table's identity and request string (see
/// ``RestService/cacheKey(_:)``): a table made again by a schema change has another identity, so
/// a query parsed against the old one is never taken for the new. At most 1,024 are kept.
final class ParsedQueries: Sendable {
    private let queries = Locked<[String: RowQuery]>([:])
    private static let most = 1024

    func query(_ key: String) -> RowQuery? { queries.withLock { $0[key] } }

    func keep(_ query: RowQuery, _ key: String) {
        queries.withLock { queries in
            if queries.count >= Self.most { queries.removeAll() }
            queries[key] = query
        }
    }
}

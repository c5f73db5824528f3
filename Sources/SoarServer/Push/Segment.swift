import Foundation
import SoarPush
import SoarStore

/// A send-push segment: filters of the data API's own syntax on `device_tokens`
/// (`environment=eq.production&app_version=gte.2.0&or=(locale.like.fr*,locale.like.de*)`), read
/// by the same parser as `/rest/v1`, so a segment is written, and fails, as a query does.
enum Segment {
    static func condition(_ filter: String, store: any DataStore) throws(PushError) -> RowQuery.Condition? {
        guard let table = store.tables["device_tokens"] else { throw .invalid("segment: the app's schema has no device_tokens table") }
        guard let items = URLComponents(string: "?" + filter)?.queryItems else { throw .invalid("segment: not a query string: \(filter.prefix(100))") }
        let pairs = items.map { (name: $0.name, value: $0.value ?? "") }
        if let other = pairs.first(where: { ["select", "order", "limit", "offset", "on_conflict", "columns"].contains($0.name) }) {
            throw .invalid("segment: only filters, not \(other.name)")
        }
        do {
            return try QueryParser(table: table).parse(pairs).condition
        } catch {
            switch error {
            case .syntax(let message, let details): throw .invalid("segment: \(message)\(details.map { ": \($0)" } ?? "")")
            case .rest(_, _, let message, _): throw .invalid("segment: \(message)")
            case .store(let failure): throw .invalid("segment: \(failure.message)")
            }
        }
    }
}

import Foundation
import SoarCore

/// How the data API answers (`Accept`) and reads bodies (`Content-Type`), as PostgREST
/// negotiates them.
enum Representation: Sendable, Equatable {
    /// A JSON array.
    case json
    /// One JSON object (`.single()`): a write of any other number of rows is rolled back.
    case object
    /// CSV with a header line.
    case csv
    /// `a=1&b=2` (a request body only): one object of text values.
    case form

    static let objectMediaType = "application/vnd.pgrst.object+json"

    /// The first type of `Accept` (in order of preference) the data API can answer in.
    ///
    /// - Throws: 406 PGRST107 naming what was asked for, when none can be served.
    static func answer(accepting header: String?) throws(ServerError) -> Representation {
        guard let header, !header.trimmingSpaces.isEmpty else { return .json }
        for type in mediaTypes(header) {
            switch type {
            case "application/json", "application/*", "*/*": return .json
            case objectMediaType: return .object
            case "text/csv", "text/*": return .csv
            default: continue
            }
        }
        throw .rest(406, "PGRST107", "None of these media types are available: \(header)")
    }

    /// What a request body is written in: JSON (the default), CSV or a form.
    ///
    /// - Throws: 415 PGRST107 for any other `Content-Type` (`text/plain` is not read as JSON).
    static func body(_ header: String?) throws(ServerError) -> Representation {
        guard let header, let type = mediaTypes(header, ranked: false).first else { return .json }
        switch type {
        case "application/json", objectMediaType: return .json
        case "text/csv": return .csv
        case "application/x-www-form-urlencoded": return .form
        default: throw .rest(415, "PGRST107", "Content-Type not acceptable: \(header)")
        }
    }

    /// `text/csv;q=0.5, application/json` -> the types by preference (q=0 left out).
    private static func mediaTypes(_ header: String, ranked: Bool = true) -> [String] {
        // The common case, one type and no parameters (`application/json`), without the parsing.
        if !header.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ";") }) {
            let type = header.trimmingSpaces.lowercased()
            return type.isEmpty ? [] : [type]
        }
        let entries = header.split(separator: ",").enumerated().compactMap { index, item -> (String, Double, Int)? in
            let parts = item.split(separator: ";").map(\.trimmingSpaces)
            guard let type = parts.first?.lowercased(), !type.isEmpty else { return nil }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0 ? (type, quality, index) : nil
        }
        guard ranked else { return entries.map(\.0) }
        return entries.sorted { ($0.1, -$0.2) > ($1.1, -$1.2) }.map(\.0)
    }
}

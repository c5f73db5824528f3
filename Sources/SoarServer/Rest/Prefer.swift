import SoarCore
/// The `Prefer` header's PostgREST preferences.
struct Prefer: Sendable {
    enum Return: String, Sendable { case minimal, representation, headersOnly = "headers-only" }
    enum Resolution: String, Sendable { case mergeDuplicates = "merge-duplicates", ignoreDuplicates = "ignore-duplicates" }

    var returning: Return?
    var resolution: Resolution?
    var countExact = false
    var missingDefault = false

    init(_ header: String?) {
        guard let header else { return }
        // `name=value` items between commas, read as bytes (every write has this header).
        for item in header.utf8.split(separator: UInt8(ascii: ",")) {
            guard let equals = item.firstIndex(of: UInt8(ascii: "=")), equals > item.startIndex, equals < item.index(before: item.endIndex)
            else { continue }
            let name = header[item.startIndex..<equals].trimmingSpaces
            let value = header[header.utf8.index(after: equals)..<item.endIndex].trimmingSpaces
            switch name {
            case "return": returning = Return(rawValue: value)
            case "resolution": resolution = Resolution(rawValue: value)
            case "count": countExact = ["exact", "planned", "estimated"].contains(value)
            case "missing": missingDefault = value == "default"
            default: break
            }
        }
    }

    /// `Preference-Applied`, listing what was honoured.
    var applied: String? {
        var parts: [String] = []
        if let resolution { parts.append("resolution=\(resolution.rawValue)") }
        if let returning { parts.append("return=\(returning.rawValue)") }
        if countExact { parts.append("count=exact") }
        if missingDefault { parts.append("missing=default") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

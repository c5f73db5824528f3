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
        for item in (header ?? "").split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            guard pair.count == 2 else { continue }
            switch pair[0] {
            case "return": returning = Return(rawValue: pair[1])
            case "resolution": resolution = Resolution(rawValue: pair[1])
            case "count": countExact = ["exact", "planned", "estimated"].contains(pair[1])
            case "missing": missingDefault = pair[1] == "default"
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

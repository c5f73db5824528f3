import Foundation

/// `local_time`: the next time a clock in a zone reads HH:MM.
enum LocalTime {
    /// The zones devices name, grouped: each valid zone alone, and those without a zone or with a
    /// name that is no zone together under `fallback`.
    static func groups(_ zones: Set<String?>, fallback: TimeZone) -> [(zone: TimeZone, names: [String?])] {
        var groups: [(zone: TimeZone, names: [String?])] = []
        var others: [String?] = []
        for name in zones.sorted(by: { ($0 ?? "") < ($1 ?? "") }) {
            if let name, let zone = TimeZone(identifier: name) { groups.append((zone, [name])) } else { others.append(name) }
        }
        if !others.isEmpty { groups.append((fallback, others)) }
        return groups
    }

    /// The first instant after `now` at which a clock in `zone` reads `hour:minute`; a time a
    /// daylight-saving change skips that day (02:30 when clocks go from 02:00 to 03:00) is the
    /// first time after it.
    static func next(hour: Int, minute: Int, in zone: TimeZone, after now: Date) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.nextDate(after: now, matching: DateComponents(hour: hour, minute: minute, second: 0), matchingPolicy: .nextTime)
            ?? now.addingTimeInterval(86_400)
    }
}

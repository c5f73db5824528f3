import Foundation

/// ISO 8601 timestamps as Postgres, PostgREST and GoTrue write them.
///
/// Accepts `2024-05-01T12:30:00Z`, `2024-05-01T12:30:00.123456+00:00`, Postgres' own
/// `2024-05-01 12:30:00.123+00` and offsets such as `+0530`; a missing zone means UTC.
public enum Timestamp {
    public static func parse(_ text: String) -> Date? {
        let s = Array(text.utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= s.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let c = s[i]
                guard c >= 48, c <= 57 else { return nil }
                value = value * 10 + Int(c - 48)
                i += 1
            }
            return value
        }
        func skip(_ c: UInt8) -> Bool {
            guard i < s.count, s[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4), skip(45), let month = number(2), skip(45), let day = number(2),
            i < s.count, s[i] == 84 || s[i] == 116 || s[i] == 32
        else { return nil }
        i += 1
        guard let hour = number(2), skip(58), let minute = number(2), skip(58), let second = number(2) else {
            return nil
        }
        var fraction = 0.0
        if skip(46) {
            var scale = 0.1
            let start = i
            while i < s.count, s[i] >= 48, s[i] <= 57 {
                fraction += Double(s[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if i < s.count {
            if s[i] == 90 || s[i] == 122 {
                i += 1
            } else if s[i] == 43 || s[i] == 45 {
                let sign = s[i] == 45 ? -1 : 1
                i += 1
                guard let hours = number(2) else { return nil }
                _ = skip(58)
                let minutes = i < s.count ? number(2) ?? -1 : 0
                guard minutes >= 0 else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard i == s.count, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let base = utc.date(from: components) else { return nil }
        return base.addingTimeInterval(fraction - Double(offset))
    }

    /// Formats a date as UTC ISO 8601 with milliseconds, e.g. `2024-05-01T12:30:00.123Z`.
    public static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = floor(seconds)
        let millis = min(999, Int(((seconds - whole) * 1000).rounded()))
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let c = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: whole))
        func pad(_ v: Int?, _ width: Int) -> String {
            let text = String(v ?? 0)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2)).\(pad(millis, 3))Z"
    }
}

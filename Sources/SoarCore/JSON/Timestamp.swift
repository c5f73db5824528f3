import Foundation

/// ISO 8601 timestamps as Postgres, PostgREST and GoTrue write them.
///
/// Accepts `2024-05-01T12:30:00Z`, `2024-05-01T12:30:00.123456+00:00`, Postgres' own
/// `2024-05-01 12:30:00.123+00`, `2024-05-01 12:30+02` (no seconds), offsets such as `+0530` and a
/// date alone (midnight); a missing zone means UTC. Years 0001 to 9999 of the proleptic Gregorian calendar, as written back; a
/// date that does not exist (February 30) is refused, as Postgres refuses it.
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
            (1...9999).contains(year), (1...12).contains(month), (1...daysIn(month, of: year)).contains(day)
        else { return nil }
        let midnight = Double(daysFromCivil(year, month, day)) * 86_400
        if i == s.count { return Date(timeIntervalSince1970: midnight) }
        guard s[i] == 84 || s[i] == 116 || s[i] == 32 else { return nil }
        i += 1
        // Seconds may be left out (`10:00+02`), as Postgres allows; a fraction follows seconds.
        guard let hour = number(2), skip(58), let minute = number(2) else { return nil }
        var second = 0
        var fraction = 0.0
        if skip(58) {
            guard let given = number(2) else { return nil }
            second = given
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
        }
        var offset = 0
        if i < s.count {
            if s[i] == 90 || s[i] == 122 {
                i += 1
            } else if s[i] == 43 || s[i] == 45 {
                let sign = s[i] == 45 ? -1 : 1
                i += 1
                guard let hours = number(2), hours <= 15 else { return nil }
                _ = skip(58)
                let minutes = i < s.count ? number(2) ?? -1 : 0
                guard (0..<60).contains(minutes) else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard i == s.count, hour < 24, minute < 60, second < 61 else { return nil }
        let time = midnight + Double(hour * 3600 + minute * 60 + second) + fraction - Double(offset)
        // What `text` would round into year 10000 (or before year 1) is out of range.
        guard (time * 1_000_000).rounded() < 253_402_300_800_000_000, time >= -62_135_596_800 else { return nil }
        return Date(timeIntervalSince1970: time)
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the inverse of the computation in `text`).
    private static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Formats a date as UTC ISO 8601 with milliseconds, e.g. `2024-05-01T12:30:00.123Z`.
    public static func format(_ date: Date) -> String {
        text(date, fractionDigits: 3, zone: "Z")
    }

    /// Formats a date as PostgREST prints a timestamptz: UTC with microseconds and `+00:00`, e.g.
    /// `2024-05-01T12:30:00.123456+00:00`. Fixed width, so text order is time order.
    public static func postgres(_ date: Date) -> String {
        text(date, fractionDigits: 6, zone: "+00:00")
    }

    private static func text(_ date: Date, fractionDigits: Int, zone: String) -> String {
        let scale: Int64 = fractionDigits == 3 ? 1000 : 1_000_000
        let ticks = Int64((date.timeIntervalSince1970 * Double(scale)).rounded())
        let seconds = ticks >= 0 ? ticks / scale : (ticks - scale + 1) / scale
        let fraction = ticks - seconds * scale
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let clock = seconds - days * 86_400
        // Days since 1970-01-01 to a civil date, in 400-year eras (no Calendar: this runs per request).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var out = [UInt8]()
        out.reserveCapacity(32)
        func put(_ value: Int64, _ width: Int) {
            let start = out.count
            out.append(contentsOf: repeatElement(48, count: width))
            var rest = value
            for index in stride(from: start + width - 1, through: start, by: -1) {
                out[index] = UInt8(48 + rest % 10)
                rest /= 10
            }
        }
        put(year, 4); out.append(45); put(month, 2); out.append(45); put(day, 2); out.append(84)
        put(clock / 3600, 2); out.append(58); put(clock / 60 % 60, 2); out.append(58); put(clock % 60, 2)
        out.append(46); put(fraction, fractionDigits)
        out.append(contentsOf: zone.utf8)
        return String(decoding: out, as: UTF8.self)
    }
}

/// A Postgres regular expression (an ARE, as `~` and `~*` take it) rewritten for ICU, which
/// `NSRegularExpression` runs, where the two read the same text differently; the rest of the two
/// syntaxes agree. Matched with `.dotMatchesLineSeparators`, since a Postgres `.` matches a newline.
///
/// Outside brackets: `$` and `\Z` end the text only (ICU's also match before a last newline, so
/// `'abc\n' ~ '^[a-z]+$'` would hold), `\y` and `\Y` are (not) a word boundary, `\m` and `\M` a
/// word's start and end, `\b` a backspace and `\B` a backslash. Inside brackets, what ICU reads
/// as syntax and Postgres as members (a first `]`, `[` not opening a class, `&`) is escaped.
enum PostgresPattern {
    static func icu(_ pattern: String) -> String {
        var result = ""
        var scalars = pattern.unicodeScalars.makeIterator()
        var bracket = Bracket.outside
        while let scalar = scalars.next() {
            if scalar == "\\" {
                guard let escaped = scalars.next() else {
                    result += "\\"  // a trailing backslash: ICU refuses it as Postgres does
                    break
                }
                if case .outside = bracket, let rewritten = outsideEscapes[escaped] {
                    result += rewritten
                } else {
                    result.unicodeScalars.append(contentsOf: ["\\", escaped])
                }
                if bracket != .outside { bracket = .inside }
                continue
            }
            switch (bracket, scalar) {
            case (.outside, "$"): result += "\\z"
            // Members to ICU, which reads them as syntax: a first `]`, and `[` or `&` (a nested set, `&&`).
            case (.first, "]"), (.firstNegated, "]"), (.first, "&"), (.firstNegated, "&"), (.inside, "&"): result += "\\" + String(scalar)
            case (.first, "["), (.firstNegated, "["), (.inside, "["):
                result += Self.startsClass(scalars) ? "[" : "\\["
            default: result.unicodeScalars.append(scalar)
            }
            bracket = bracket.after(scalar, peeking: &scalars, into: &result)
        }
        return result
    }

    /// Whether a `[` inside brackets opens a class (`[:alpha:]`, `[=a=]`, `[.a.]`).
    private static func startsClass(_ scalars: String.UnicodeScalarView.Iterator) -> Bool {
        var ahead = scalars
        guard let kind = ahead.next() else { return false }
        return kind == ":" || kind == "=" || kind == "."
    }

    private static let outsideEscapes: [Unicode.Scalar: String] = [
        "Z": "\\z", "y": "\\b", "Y": "\\B", "m": "\\b(?=\\w)", "M": "\\b(?<=\\w)", "b": "\\x{08}", "B": "\\\\",
    ]

    /// Where a scalar stands against a bracket expression: a `]` first in one (after `[` or `[^`)
    /// is a member, and `[:alpha:]`, `[=a=]`, `[.a.]` inside one are copied whole.
    private enum Bracket: Equatable {
        case outside, first, firstNegated, inside

        func after(_ scalar: Unicode.Scalar, peeking scalars: inout String.UnicodeScalarView.Iterator, into result: inout String) -> Bracket {
            switch (self, scalar) {
            case (.outside, "["): return .first
            case (.outside, _): return .outside
            case (.first, "^"): return .firstNegated
            case (.inside, "]"): return .outside
            case (_, "["):
                Self.copyClass(from: &scalars, into: &result)
                return .inside
            default: return .inside
            }
        }

        /// After a `[` inside brackets: a class such as `[:alpha:]`, up to its closing `:]`.
        private static func copyClass(from scalars: inout String.UnicodeScalarView.Iterator, into result: inout String) {
            guard PostgresPattern.startsClass(scalars), let kind = scalars.next() else { return }
            result.unicodeScalars.append(kind)
            var previous: Unicode.Scalar?
            while let next = scalars.next() {
                result.unicodeScalars.append(next)
                if next == "]" && previous == kind { return }
                previous = next
            }
        }
    }
}

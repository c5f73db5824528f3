/// `timestamp ± interval '7 days'`: a constant interval added to or taken from a time, through
/// `soar_shift(time, seconds, months)` (the store adds calendar months, then seconds, and writes
/// the time as it stores times), as Postgres adds them in UTC.
extension ExpressionTranslator {
    /// `left op right` when one side is a constant interval; nil otherwise.
    func intervalArithmetic(_ op: String, _ left: Node, _ right: Node) throws(SQLError) -> String? {
        if let shift = try interval(right) {
            let sign = op == "-" ? -1 : 1
            return "soar_shift(\(try expression(left)), \(Double(sign) * shift.seconds), \(sign * shift.months))"
        }
        if op == "+", let shift = try interval(left) {
            return "soar_shift(\(try expression(right)), \(shift.seconds), \(shift.months))"
        }
        return nil
    }

    /// A constant interval (`interval '1 day'`, `'2 hours'::interval`) as seconds and months.
    private func interval(_ node: Node) throws(SQLError) -> (seconds: Double, months: Int)? {
        guard node.kind == "TypeCast", let type = node.record("typeName", as: "TypeName"),
            TypeMapping.postgresName(type.names("names")) == "interval", let arg = node.node("arg"), arg.kind == "A_Const",
            let text = arg.record("sval", as: "String")?.string("sval")
        else { return nil }
        guard let parts = Self.intervalParts(text) else {
            throw SQLError("interval \"\(text)\" is not supported on SQLite (write it as amounts and units: '1 day 2 hours')", at: node.location ?? 0)
        }
        return parts
    }

    /// `'1 year 2 months 3 days 04:05:06'` read as Postgres reads it: amounts with units (plural
    /// or not, abbreviated as Postgres allows), and a clock time; nil for anything else.
    static func intervalParts(_ text: String) -> (seconds: Double, months: Int)? {
        var seconds = 0.0, months = 0
        var words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if words.first == "@" { words.removeFirst() }
        guard !words.isEmpty else { return nil }
        var index = 0
        while index < words.count {
            let word = words[index]
            if word.contains(":") {
                let clock = word.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
                guard (2...3).contains(clock.count), !clock.contains(where: { $0 == nil }) else { return nil }
                let sign = word.hasPrefix("-") ? -1.0 : 1.0
                let values = clock.map { abs($0!) }
                seconds += sign * (values[0] * 3600 + values[1] * 60 + (values.count == 3 ? values[2] : 0))
                index += 1
                continue
            }
            guard let amount = Double(word), index + 1 < words.count, let unit = unitSeconds(words[index + 1].lowercased()) else { return nil }
            switch unit {
            case .seconds(let each): seconds += amount * each
            case .months(let each):
                guard amount == amount.rounded() else { return nil }  // a fraction of a month is Postgres's own reckoning
                months += Int(amount) * each
            }
            index += 2
        }
        return (seconds, months)
    }

    private enum Unit { case seconds(Double), months(Int) }

    private static func unitSeconds(_ unit: String) -> Unit? {
        switch unit {
        case "microsecond", "microseconds", "us": .seconds(0.000_001)
        case "millisecond", "milliseconds", "ms": .seconds(0.001)
        case "second", "seconds", "sec", "secs", "s": .seconds(1)
        case "minute", "minutes", "min", "mins", "m": .seconds(60)
        case "hour", "hours", "hr", "hrs", "h": .seconds(3600)
        case "day", "days", "d": .seconds(86_400)
        case "week", "weeks", "w": .seconds(604_800)
        case "month", "months", "mon", "mons": .months(1)
        case "year", "years", "yr", "yrs", "y": .months(12)
        default: nil
        }
    }
}

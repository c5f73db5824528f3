import SoarCore

extension Table {
    /// Checks the values about to be written against their columns' rules, as Postgres checks a
    /// table's CHECK constraints (named `<table>_<column>_check`).
    ///
    /// - Throws: ``StoreError`` 23514 naming the constraint, with what is wrong in `details`.
    public func checkValues(_ values: RowValues) throws(StoreError) {
        for column in columns {
            guard let check = column.check, case .text(let text)? = values[column.name] else { continue }
            if let problem = Self.problem(text, check) {
                throw .checkViolation("\(name)_\(column.name)_check", table: name, details: "\(column.name): \(problem)")
            }
        }
    }

    private static func problem(_ text: String, _ check: Column.Check) -> String? {
        switch check {
        case .hexToken(let bytes):
            do {
                let token = try PushToken(hex: text)
                guard text.utf8.count == token.bytes.count * 2 else { return "a device token is plain hex, without spaces or brackets" }
                guard bytes.contains(token.bytes.count) else {
                    return "a device token is \(bytes.lowerBound) to \(bytes.upperBound) bytes (\(bytes.lowerBound * 2) to \(bytes.upperBound * 2) hex digits), this one is \(token.bytes.count)"
                }
                return nil
            } catch {
                return error.description
            }
        case .oneOf(let allowed):
            return allowed.contains(text) ? nil : "must be one of \(allowed.joined(separator: ", ")), not \"\(text)\""
        }
    }
}

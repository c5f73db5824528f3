import SoarCore

extension Table {
    /// Checks the values about to be written against their columns' rules, as Postgres checks a
    /// table's CHECK constraints (named `<table>_<column>_check`), and returns them in the form
    /// stored: a device token in lowercase hex, so one device is one row whatever case it came in.
    ///
    /// - Throws: ``StoreError`` 23514 naming the constraint, with what is wrong in `details`.
    public func checkedValues(_ values: RowValues) throws(StoreError) -> RowValues {
        var values = values
        for column in columns {
            guard let check = column.check, case .text(let text)? = values[column.name] else { continue }
            if let problem = Self.problem(text, check) {
                throw .checkViolation("\(name)_\(column.name)_check", table: name, details: "\(column.name): \(problem)")
            }
            values[column.name] = .text(column.canonical(text))
        }
        return values
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
        case .bundleID:
            // Apple's rule for a bundle id: letters, digits, hyphens and periods; it becomes the
            // apns-topic header, so it is kept to a header's size.
            guard !text.isEmpty, text.utf8.count <= 155 else { return "a bundle id is 1 to 155 characters, this one is \(text.utf8.count)" }
            guard text.utf8.allSatisfy({ $0 == 45 || $0 == 46 || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }) else {
                return "a bundle id has only letters, digits, hyphens and periods"
            }
            return nil
        case .oneOf(let allowed):
            return allowed.contains(text) ? nil : "must be one of \(allowed.joined(separator: ", ")), not \"\(text)\""
        }
    }
}

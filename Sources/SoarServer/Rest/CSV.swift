import Foundation

/// RFC 4180 CSV, as PostgREST reads and writes it: a header line of column names, then a line
/// per row; fields with a comma, quote or line break are quoted, quotes doubled; NULL is empty.
enum CSV {
    static func line(_ fields: [String?]) -> String {
        fields.map { field in
            guard let field else { return "" }
            guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",")
    }

    /// The rows of a CSV body, its first line the column names; an unquoted empty field is NULL.
    ///
    /// - Throws: a description of what is wrong (a quote left open, a row of another width).
    static func rows(_ text: String) throws(CSVError) -> (columns: [String], rows: [[String?]]) {
        let characters = Array(text)  // "\r\n" is one Character
        var records: [[String?]] = []
        var record: [String?] = []
        var field = ""
        var wasQuoted = false
        var index = 0
        func endField() {
            record.append(field.isEmpty && !wasQuoted ? nil : field)
            field = ""
            wasQuoted = false
        }
        while index < characters.count {
            let character = characters[index]
            index += 1
            switch character {
            case "\"" where field.isEmpty && !wasQuoted:
                wasQuoted = true
                var closed = false
                while index < characters.count {
                    let inner = characters[index]
                    index += 1
                    if inner == "\"" {
                        if index < characters.count && characters[index] == "\"" {
                            field.append("\"")
                            index += 1
                        } else {
                            closed = true
                            break
                        }
                    } else {
                        field.append(inner)
                    }
                }
                guard closed else { throw CSVError("a quoted field is not closed") }
            case ",":
                endField()
            case "\n", "\r\n", "\r":
                endField()
                records.append(record)
                record = []
            default:
                field.append(character)
            }
        }
        if !field.isEmpty || wasQuoted || !record.isEmpty {
            endField()
            records.append(record)
        }
        guard let header = records.first else { throw CSVError("the body has no header line") }
        let columns = header.map { $0 ?? "" }
        for (offset, row) in records.dropFirst().enumerated() where row.count != columns.count {
            throw CSVError("line \(offset + 2) has \(row.count) fields, the header \(columns.count)")
        }
        return (columns, Array(records.dropFirst()))
    }
}

struct CSVError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}

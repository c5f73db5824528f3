import CPgQuery
import SoarCore

/// Postgres's own SQL parser (libpg_query): the only type that calls its C API.
public enum SQLParser {
    /// One statement of a file and where it starts (a byte offset into the file's text).
    public struct Statement: Sendable {
        public let node: Node
        public let offset: Int
        /// The whole text parsed, in UTF-8: locations in the tree are byte offsets into it.
        public let source: [UInt8]
    }

    /// Splits and parses `text` into statements.
    ///
    /// - Throws: ``SQLError`` at the character the parser stopped on.
    public static func parse(_ text: String) throws(SQLError) -> [Statement] {
        let result = pg_query_parse(text)
        defer { pg_query_free_parse_result(result) }
        if let error = result.error {
            let message = error.pointee.message.map { String(cString: $0) } ?? "syntax error"
            // cursorpos counts characters from 1; 0 means the parser named no place.
            let cursor = Int(error.pointee.cursorpos)
            let offset = cursor > 0 ? text.utf8.distance(from: text.startIndex, to: text.index(text.startIndex, offsetBy: min(cursor - 1, text.count))) : 0
            throw SQLError(message, at: offset)
        }
        guard let tree = result.parse_tree, case .object(let root)? = try? JSONValue.read(String(cString: tree)) else {
            throw SQLError("the parser returned no tree", at: 0)
        }
        let bytes = Array(text.utf8)
        return (root["stmts"]?.arrayValue ?? []).compactMap { raw in
            guard case .object(let entry) = raw, let node = entry["stmt"].flatMap(Node.init) else { return nil }
            let start = if case .int(let value)? = entry["stmt_location"] { value } else { 0 }
            return Statement(node: node, offset: firstToken(in: text, from: start), source: bytes)
        }
    }
}

extension SQLParser {
    /// Where a statement's first word is: its recorded start is right after the previous `;`,
    /// before the blank lines and `--` comments that lead up to it.
    static func firstToken(in text: String, from start: Int) -> Int {
        let bytes = Array(text.utf8)
        var index = start
        while index < bytes.count {
            if bytes[index] == 32 || (9...13).contains(bytes[index]) {
                index += 1
            } else if bytes[index] == 45, index + 1 < bytes.count, bytes[index + 1] == 45 {
                while index < bytes.count && bytes[index] != 10 { index += 1 }
            } else {
                break
            }
        }
        return index
    }
}

/// A statement that cannot be parsed or applied, at a byte offset of the file's text.
public struct SQLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let offset: Int

    public init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { message }

    /// `line:column` (both from 1, the column in characters) of `offset` in `text`.
    public static func position(of offset: Int, in text: String) -> (line: Int, column: Int) {
        let bytes = Array(text.utf8.prefix(max(0, offset)))
        let lineStart = (bytes.lastIndex(of: 10).map { $0 + 1 }) ?? 0
        let line = bytes.filter { $0 == 10 }.count + 1
        let column = String(decoding: bytes[lineStart...], as: UTF8.self).count + 1
        return (line, column)
    }
}

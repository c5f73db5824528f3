import CPostgres
import Foundation

/// One libpq connection: the only type that touches libpq's API.
///
/// Statements are prepared once per connection and reused; values travel as text parameters
/// (`nil` is NULL), results come back as text. A failure becomes a ``StoreError`` with Postgres'
/// own SQLSTATE, message, detail and hint, or ``StoreError/unavailable(_:)`` when the connection
/// itself is gone.
final class PGConnection {
    private let handle: OpaquePointer
    private var prepared: [String: String] = [:]

    /// - Throws: ``StoreError/unavailable(_:)`` when the server cannot be reached or refuses.
    init(_ url: String) throws(StoreError) {
        guard let handle = PQconnectdb(url) else { throw .unavailable("cannot allocate a Postgres connection") }
        self.handle = handle
        // A throw from here on runs deinit, which finishes the handle.
        guard PQstatus(handle) == CONNECTION_OK else {
            throw .unavailable("cannot connect to Postgres: \(Self.text(PQerrorMessage(handle)))")
        }
        // Postgres' notices ("already exists, skipping") are not errors: keep them off standard error.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        // Timestamps as UTC, one shape for every session.
        _ = try execute("SET TIME ZONE 'UTC'")
    }

    deinit { PQfinish(handle) }

    /// False once the server closed the connection or it broke.
    var isUsable: Bool { PQstatus(handle) == CONNECTION_OK }
    /// Results read so far: when it has not moved during a use, nothing ran on the server then.
    private(set) var resultsRead = 0

    /// True when no transaction is open on it: the only state in which it goes back to the pool.
    var isIdle: Bool { PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Runs SQL text without parameters (it may hold several statements).
    @discardableResult
    func execute(_ sql: String) throws(StoreError) -> [[String?]] {
        try check(PQexec(handle, sql)).rows
    }

    /// Statements kept prepared per connection; past this, new texts run unprepared, so a client
    /// varying its queries cannot grow the server's memory.
    static let preparedLimit = 256

    /// Runs one statement with text parameters, prepared on first use (up to ``preparedLimit``).
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws(StoreError) -> [[String?]] {
        try check(try run(sql, parameters)).rows
    }

    func query(_ statement: SQLStatement) throws(StoreError) -> [[String?]] {
        try query(statement.text, statement.parameters.map(\.postgresText))
    }

    private func run(_ sql: String, _ parameters: [String?]) throws(StoreError) -> OpaquePointer? {
        var name = prepared[sql]
        if name == nil && prepared.count < Self.preparedLimit {
            name = "s\(prepared.count)"
            try check(PQprepare(handle, name, sql, Int32(parameters.count), nil))
            prepared[sql] = name
        }
        return withValues(parameters) { values in
            guard let name else { return PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0) }
            return PQexecPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
        }
    }

    /// What one statement of a pipeline answered.
    struct Answer {
        var rows: [[String?]] = []
        /// How many rows it changed (libpq's count).
        var changed = 0
    }

    /// Runs statements in one round trip (libpq's pipeline mode): all are sent, then every answer
    /// is read. Once one fails the server skips the rest; its error is thrown once all is read, so
    /// the connection is ready for a ROLLBACK.
    func pipeline(_ statements: [SQLStatement]) throws(StoreError) -> [Answer] {
        guard PQenterPipelineMode(handle) == 1 else { throw .unavailable("Postgres: \(Self.text(PQerrorMessage(handle)))") }
        defer { PQexitPipelineMode(handle) }
        // Each statement's answer, after the answer to its PREPARE when it is new (nil: a name to keep).
        var expected: [(sql: String, name: String)?] = []
        var naming: [String: String] = [:]
        for statement in statements {
            let parameters = statement.parameters.map(\.postgresText)
            var name = prepared[statement.text] ?? naming[statement.text]
            if name == nil && prepared.count + naming.count < Self.preparedLimit {
                let fresh = "s\(prepared.count + naming.count)"
                guard PQsendPrepare(handle, fresh, statement.text, Int32(parameters.count), nil) == 1 else { throw lost() }
                naming[statement.text] = fresh
                expected.append((statement.text, fresh))
                name = fresh
            }
            let sent = withValues(parameters) { values in
                guard let name else { return PQsendQueryParams(handle, statement.text, Int32(parameters.count), nil, values, nil, nil, 0) }
                return PQsendQueryPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0)
            }
            guard sent == 1 else { throw lost() }
            expected.append(nil)
        }
        guard PQpipelineSync(handle) == 1 else { throw lost() }
        var answers: [Answer] = [], failure: StoreError?
        for preparing in expected {
            guard let result = PQgetResult(handle) else { throw lost() }
            while let extra = PQgetResult(handle) { PQclear(extra) }  // each statement's answers end with NULL
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                PQclear(result)
                if preparing == nil { answers.append(Answer()) }
                continue
            }
            do throws(StoreError) {
                let answer = try check(result)
                if let preparing { prepared[preparing.sql] = preparing.name } else { answers.append(answer) }
            } catch {
                failure = failure ?? error
                if preparing == nil { answers.append(Answer()) }
            }
        }
        guard let sync = PQgetResult(handle) else { throw lost() }
        PQclear(sync)
        if let failure { throw failure }
        return answers
    }

    /// `parameters` as the C strings libpq reads (nil for NULL), for the length of `body`.
    private func withValues<T>(_ parameters: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.flatMap { strdup($0) } }
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(buffer.count, 1)) { values in
                body(parameters.isEmpty ? nil : UnsafePointer(values))
            }
        }
    }

    private func lost() -> StoreError { .unavailable("Postgres connection lost: \(Self.text(PQerrorMessage(handle)))") }

    /// A string as a quoted SQL literal, for the few statements that cannot take parameters.
    func literal(_ text: String) -> String {
        guard let quoted = PQescapeLiteral(handle, text, text.utf8.count) else { return "''" }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    /// Waits up to `timeout` for a NOTIFY on a channel this connection LISTENs to.
    ///
    /// - Returns: the notifications' payloads (empty after the timeout).
    func notifications(timeout: TimeInterval) throws(StoreError) -> [String] {
        var payloads = drainNotifications()
        if !payloads.isEmpty { return payloads }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(timeout * 1000)) >= 0 else { return [] }
        guard PQconsumeInput(handle) == 1 else { throw .unavailable("Postgres connection lost: \(Self.text(PQerrorMessage(handle)))") }
        payloads = drainNotifications()
        return payloads
    }

    private func drainNotifications() -> [String] {
        var payloads: [String] = []
        while let notice = PQnotifies(handle) {
            payloads.append(String(cString: notice.pointee.extra))
            PQfreemem(notice)
        }
        return payloads
    }

    /// Reads a result, clears it, and turns a failure into a ``StoreError``.
    @discardableResult
    private func check(_ result: OpaquePointer?) throws(StoreError) -> Answer {
        guard let result else { throw lost() }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK:
            resultsRead += 1
            let rows = Int(PQntuples(result)), columns = Int(PQnfields(result))
            return Answer(rows: (0..<rows).map { row in
                (0..<columns).map { column in
                    PQgetisnull(result, Int32(row), Int32(column)) == 1 ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(column)))
                }
            }, changed: Int(String(cString: PQcmdTuples(result))) ?? 0)
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            resultsRead += 1
            return Answer(changed: Int(String(cString: PQcmdTuples(result))) ?? 0)
        default:
            func field(_ code: Character) -> String? {
                PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
            }
            guard isUsable, let state = field("C") else { throw lost() }
            // Class 08 (connection), 57P (shutdown, admin), 53 (resources, a full disk) and a
            // read-only database (25006: a standby, say): the database, not the request.
            if state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53") || state == "25006" {
                throw .unavailable("Postgres: \(field("M") ?? state)")
            }
            var error = StoreError(code: state, message: field("M") ?? "", details: field("D"), hint: field("H"))
            error.position = field("P").flatMap { Int($0) }
            throw error
        }
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }
}

import SoarCore

extension Table {
    /// Fills defaults and checks NOT NULL, as Postgres does on insert.
    ///
    /// - Parameter checkingNotNull: false leaves NOT NULL to the database (Postgres checks grants
    ///   first, so a client that may not insert hears that, not which column is missing).
    public func completed(_ values: RowValues, access: Access, time: String, checkingNotNull: Bool = true) throws(StoreError) -> RowValues {
        var full = values
        for column in columns where full[column.name] == nil {
            switch column.defaultValue {
            case .none: break
            case .randomUUID: full[column.name] = .text(RandomUUID.lowercase())
            case .now: full[column.name] = .text(time)
            case .callerID: if let id = access.userID { full[column.name] = .text(id) }
            case .value(let value): full[column.name] = value
            }
            if checkingNotNull && full[column.name] == nil && !column.nullable { throw .notNull(column.name, table: name) }
        }
        for column in columns where checkingNotNull && full[column.name] == .null && !column.nullable {
            throw .notNull(column.name, table: name)
        }
        return full
    }
}

/// One column of a declared table: its name, Postgres type, and what the server fills in.
public struct Column: Sendable {
    /// The Postgres types the data API speaks; SQLite stores each in a fixed shape.
    public enum Kind: String, Sendable {
        case uuid, text, bigint, boolean, timestamptz, jsonb
    }

    /// What a missing value becomes.
    public enum Default: Sendable {
        case none, randomUUID, now, callerID, value(SQLValue)
    }

    /// A rule every written value must keep, beyond its type (a CHECK constraint in Postgres).
    public enum Check: Sendable {
        /// An APNs device token as hex: an even number of hex digits, `bytes` long once decoded.
        case hexToken(bytes: ClosedRange<Int>)
        /// An app's bundle id (the APNs topic): letters, digits, hyphens and periods.
        case bundleID
        /// One of these values.
        case oneOf([String])
    }

    public let name: String
    public let kind: Kind
    public let nullable: Bool
    public let defaultValue: Default
    /// Set to now on every update that does not set it itself.
    public let touchedOnUpdate: Bool
    public let check: Check?

    public init(
        _ name: String, _ kind: Kind, nullable: Bool = false, default defaultValue: Default = .none, touchedOnUpdate: Bool = false,
        check: Check? = nil
    ) {
        self.name = name
        self.kind = kind
        self.nullable = nullable
        self.defaultValue = defaultValue
        self.touchedOnUpdate = touchedOnUpdate
        self.check = check
    }
}

extension Column {
    /// `text` in the one form the column stores and compares: a device token in lowercase hex.
    public func canonical(_ text: String) -> String {
        if case .hexToken? = check { return text.lowercased() }
        return text
    }
}

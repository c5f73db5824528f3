/// A value as SQLite stores it; every value reaches SQL as a bound parameter of this type.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

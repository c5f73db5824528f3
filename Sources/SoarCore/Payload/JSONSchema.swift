/// The JSON type a known payload key must have; the key tables live beside the types they check.
enum JSONKind: Sendable {
    case string, integer, number, object, stringArray
    /// A string or an object checked against a nested table (`alert`, `sound`).
    case stringOr([String: JSONKind])

    var name: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .number: "a number"
        case .object: "an object"
        case .stringArray: "an array of strings"
        case .stringOr: "a string or an object"
        }
    }

    func check(_ value: JSONValue, key: String) throws(PayloadError) {
        let ok: Bool
        switch (self, value) {
        case (.string, .string), (.integer, .int), (.number, .int), (.number, .double), (.number, .number),
            (.object, .object):
            ok = true
        case (.integer, .double), (.integer, .number): ok = value.intValue != nil
        case (.stringArray, .array(let items)): ok = items.allSatisfy { $0.stringValue != nil }
        case (.stringOr, .string): ok = true
        case (.stringOr(let table), .object(let fields)):
            try Self.check(fields, against: table, path: key + ".")
            ok = true
        default: ok = false
        }
        if !ok { throw .wrongType(key, expected: name, got: value) }
    }

    /// Checks the known keys of an object; unknown keys pass untouched.
    static func check(_ fields: [String: JSONValue], against table: [String: JSONKind], path: String = "")
        throws(PayloadError)
    {
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            try table[key]?.check(value, key: path + key)
        }
    }
}

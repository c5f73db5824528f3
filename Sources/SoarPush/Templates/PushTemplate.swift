import Foundation
import SoarAPNs
import SoarCore

/// A named notification: texts with `{{variables}}` in one or more locales
/// (`PUT /functions/v1/templates/<name>`), checked when it is saved so that a send from it can
/// only fail on the values it is given.
///
/// ```json
/// {"default_locale": "en", "variables": {"name": 40},
///  "variants": {"en": {"title": "Hi {{name}}", "body": "Your order shipped"},
///               "fr": {"title": "Bonjour {{name}}", "body": "Votre commande est partie"}}}
/// ```
/// `variables` gives each one's longest value in bytes of UTF-8; a variant has a `body` and
/// optionally a `title` and a `subtitle`.
public struct PushTemplate: Sendable {
    public let name: String
    public let defaultLocale: String
    public let variables: [String: Int]
    /// Locale (lowercase, `-` between subtags) → field → text.
    public let variants: [String: [String: String]]

    static let fields: Set<String> = ["title", "subtitle", "body"]

    /// Reads and checks a definition: every placeholder a declared variable, every variant within
    /// Apple's payload limit with each variable at its longest.
    ///
    /// - Throws: ``PushError`` 400 naming what is wrong.
    public init(name: String, json: JSONValue) throws(PushError) {
        guard (try? PushKind.checked(name)) != nil else { throw .invalid("a template's name is 1 to 64 of a-z 0-9 _ . -") }
        self.name = name
        guard let object = json.objectValue else { throw .invalid("a template is a JSON object with default_locale, variables and variants") }
        if let unknown = object.keys.sorted().first(where: { !["default_locale", "variables", "variants", "name"].contains($0) }) {
            throw .invalid("unknown field \"\(unknown)\"; a template has default_locale, variables and variants")
        }
        var variables: [String: Int] = [:]
        for (variable, longest) in object["variables"]?.objectValue ?? [:] {
            guard Self.isVariableName(variable) else { throw .invalid("variables: \"\(variable)\" is not a name (a letter or _, then letters, digits, _)") }
            guard let bytes = longest.intValue, (1...4096).contains(bytes) else {
                throw .invalid("variables.\(variable) must be its longest value in bytes, 1 to 4096")
            }
            variables[variable] = bytes
        }
        self.variables = variables
        guard let given = object["variants"]?.objectValue, !given.isEmpty else {
            throw .invalid("variants must hold at least one locale's texts, e.g. {\"en\": {\"title\": \"Hi {{name}}\", \"body\": \"…\"}}")
        }
        var variants: [String: [String: String]] = [:]
        for (locale, texts) in given {
            guard let key = LocaleMatch.normalized(locale) else { throw .invalid("variants: \"\(locale)\" is not a locale such as en, fr-CA or zh-Hant-TW") }
            guard variants[key] == nil else { throw .invalid("variants: \"\(locale)\" is given twice") }
            guard let fields = texts.objectValue, fields["body"]?.stringValue != nil else { throw .invalid("variants.\(locale) must have a body") }
            var variant: [String: String] = [:]
            for (field, value) in fields {
                guard Self.fields.contains(field), let text = value.stringValue else {
                    throw .invalid("variants.\(locale).\(field): a variant has title, subtitle and body, each a string")
                }
                for used in try Self.placeholders(in: text, at: "variants.\(locale).\(field)") where variables[used] == nil {
                    let known = variables.keys.sorted().joined(separator: ", ")
                    throw .invalid("variants.\(locale).\(field) uses {{\(used)}}, which is not one of the variables (\(known.isEmpty ? "none declared" : known))")
                }
                variant[field] = text
            }
            variants[key] = variant
        }
        self.variants = variants
        guard let locale = object["default_locale"]?.stringValue, let key = LocaleMatch.normalized(locale), variants[key] != nil else {
            throw .invalid("default_locale must name one of the variants (\(variants.keys.sorted().joined(separator: ", ")))")
        }
        defaultLocale = key
        // Each variant at its longest must fit: a send can then only be refused for its values.
        let longest = variables.mapValues { String(repeating: "x", count: $0) }
        for (locale, _) in variants {
            var payload = Payload(aps: APS(fields: ["alert": alert(locale, longest)]))
            payload.custom["kind"] = .string(String(repeating: "k", count: 64))
            do throws(PushError) {
                try Inbox.checkSendable(APNsNotification(token: "", payload: payload), badge: true)
            } catch {
                throw .invalid("variants.\(locale) is too large with every variable at its longest: \(error.message)")
            }
        }
    }

    /// The definition as saved and listed.
    public var json: JSONValue {
        [
            "name": .string(name), "default_locale": .string(defaultLocale), "variables": .object(variables.mapValues { .int($0) }),
            "variants": .object(variants.mapValues { .object($0.mapValues(JSONValue.string)) }),
        ]
    }

    /// Each locale's alert with `values` put in.
    ///
    /// - Throws: ``PushError`` 400 for a variable without a value, a value over its longest, or a
    ///   value for no variable.
    public func alerts(_ values: [String: JSONValue]) throws(PushError) -> [String: JSONValue] {
        var texts: [String: String] = [:]
        for (variable, value) in values {
            guard let longest = variables[variable] else { throw .invalid("data.\(variable) is not one of the template \(name)'s variables (\(variables.keys.sorted().joined(separator: ", ")))") }
            let text: String
            switch value {
            case .string(let string): text = string
            case .int(let number): text = String(number)
            case .double(let number): text = String(number)
            default: throw .invalid("data.\(variable) must be a string or a number")
            }
            guard text.utf8.count <= longest else { throw .invalid("data.\(variable) is \(text.utf8.count) bytes; the template \(name) allows \(longest)") }
            texts[variable] = text
        }
        if let missing = variables.keys.sorted().first(where: { texts[$0] == nil }) {
            throw .invalid("data lacks \(missing), which the template \(name) uses")
        }
        return variants.keys.reduce(into: [:]) { $0[$1] = alert($1, texts) }
    }

    private func alert(_ locale: String, _ values: [String: String]) -> JSONValue {
        .object((variants[locale] ?? [:]).mapValues { .string(Self.fill($0, values)) })
    }

    /// `text` with each `{{name}}` replaced by its value (texts are checked when saved).
    static func fill(_ text: String, _ values: [String: String]) -> String {
        (pieces(of: text) ?? [(text[...], nil)]).map { $0.literal + ($0.variable.flatMap { values[$0] } ?? "") }.joined()
    }

    /// The variables `text` names; a `{{` that opens no placeholder is refused.
    static func placeholders(in text: String, at place: String) throws(PushError) -> [String] {
        guard let pieces = pieces(of: text) else { throw .invalid("\(place) opens a {{ it never closes") }
        let names = pieces.compactMap(\.variable)
        if let bad = names.first(where: { !isVariableName($0) }) { throw .invalid("\(place): {{\(bad)}} is not a variable's name") }
        return names
    }

    /// `text` as runs of literal text, each followed by the placeholder's name after it (if any);
    /// nil when a `{{` is never closed.
    private static func pieces(of text: String) -> [(literal: Substring, variable: String?)]? {
        var pieces: [(literal: Substring, variable: String?)] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { return nil }
            pieces.append((rest[..<open.lowerBound], rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)))
            rest = rest[close.upperBound...]
        }
        return pieces + [(rest, nil)]
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.count <= 64 else { return false }
        let letters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
        return letters.contains(first) && name.unicodeScalars.allSatisfy { letters.contains($0) || ("0"..."9").contains($0) }
    }
}

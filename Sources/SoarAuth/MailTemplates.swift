import Foundation
import SoarCore
import SoarStore

/// The mails auth sends, by GoTrue's kinds: a subject, a plain-text body with the link and the
/// code, and, when a template file gives one, an HTML part. Subjects and templates are overridden
/// by GoTrue's variables (`GOTRUE_MAILER_SUBJECTS_CONFIRMATION`, `GOTRUE_MAILER_TEMPLATES_RECOVERY`
/// …, a template being a file path) or by files in `supabase/templates` (`confirmation.html`,
/// `magic_link.html`, `recovery.html`, `email_change.html`).
public struct MailTemplates: Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        case confirmation, magicLink = "magic_link", recovery, emailChange = "email_change"

        /// GoTrue's default subject.
        var subject: String {
            switch self {
            case .confirmation: "Confirm your email address"
            case .magicLink: "Your sign-in link"
            case .recovery: "Reset your password"
            case .emailChange: "Confirm your new email address"
            }
        }

        var environmentName: String { rawValue.uppercased() }
    }

    /// What a template may use, as GoTrue's Go templates name it: `{{ .ConfirmationURL }}`, and
    /// `{{ .Data.name }}` for the user's metadata.
    public static let variables = ["ConfirmationURL", "Token", "TokenHash", "SiteURL", "Email", "NewEmail", "SendingTo", "RedirectTo"]
    /// The most a template file may hold.
    public static let sizeLimit = 100_000

    var subjects: [Kind: String] = [:]
    var html: [Kind: String] = [:]

    public init() {}

    /// The defaults, with what the environment and `folder` override.
    ///
    /// - Throws: a message naming the file when one cannot be read, is too large, or uses
    ///   something other than the variables above.
    public static func load(environment: [String: String], folder: String) throws(AuthError) -> MailTemplates {
        var templates = MailTemplates()
        for kind in Kind.allCases {
            if let subject = environment["GOTRUE_MAILER_SUBJECTS_\(kind.environmentName)"], !subject.isEmpty {
                try check(subject, source: "GOTRUE_MAILER_SUBJECTS_\(kind.environmentName)")
                templates.subjects[kind] = subject
            }
            let named = environment["GOTRUE_MAILER_TEMPLATES_\(kind.environmentName)"].flatMap { $0.isEmpty ? nil : $0 }
            let path = named.map { $0.hasPrefix("file://") ? String($0.dropFirst(7)) : $0 } ?? folder + "/\(kind.rawValue).html"
            guard named != nil || FileManager.default.fileExists(atPath: path) else { continue }
            let source = named.map { "GOTRUE_MAILER_TEMPLATES_\(kind.environmentName) (\($0))" } ?? path
            if named?.contains("://") == true && named?.hasPrefix("file://") == false {
                throw configuration("\(source): give a file path (templates are read from files, not fetched)")
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw configuration("\(source): cannot read the file") }
            guard data.count <= sizeLimit else { throw configuration("\(source): the template is over \(sizeLimit / 1000) KB") }
            guard let text = String(data: data, encoding: .utf8) else { throw configuration("\(source): the template is not UTF-8 text") }
            try check(text, source: source)
            templates.html[kind] = text
        }
        return templates
    }

    /// The mail of `kind` for these values (keys among ``variables``).
    func render(_ kind: Kind, to: String, values: [String: String], createdAt: String) -> Mail {
        let subject = Self.substitute(subjects[kind] ?? kind.subject) { values[$0] ?? "" }
        let url = values["ConfirmationURL"] ?? ""
        let code = values["Token"] ?? ""
        let text = switch kind {
        case .emailChange:
            "Confirm the change of your email from \(values["Email"] ?? "") to \(values["NewEmail"] ?? ""): open \(url) or enter the code \(code)."
        default: "\(subject): open \(url) or enter the code \(code)."
        }
        let html = html[kind].map { template in
            Self.substitute(template) { name in Self.escaped(values[name] ?? "") }
        }
        return Mail(to: to, subject: subject, text: text + "\nIt works once, within an hour. If you did not ask for it, ignore this mail.", html: html, createdAt: createdAt)
    }

    // MARK: Go's {{ .Name }}

    private static var action: Regex<(Substring, Substring)> { /\{\{\s*(.*?)\s*\}\}/ }

    private static func check(_ template: String, source: String) throws(AuthError) {
        for match in template.matches(of: action) {
            let inside = String(match.1)
            let name = inside.dropFirst()
            guard inside.hasPrefix("."), variables.contains(String(name)) || (name.hasPrefix("Data.") && name.count > 5) else {
                let line = template[..<match.range.lowerBound].filter { $0 == "\n" }.count + 1
                throw configuration("\(source):\(line): {{ \(inside) }} is not one of \((variables + ["Data.<key>"]).map { "{{ .\($0) }}" }.joined(separator: ", "))")
            }
        }
    }

    private static func substitute(_ template: String, _ value: (String) -> String) -> String {
        template.replacing(action) { match in value(String(match.1.dropFirst())) }
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }

    private static func configuration(_ message: String) -> AuthError { AuthError(500, "configuration", message) }
}

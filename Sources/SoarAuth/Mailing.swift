import Foundation
import SoarCore
import SoarStore

/// Where mail goes: an SMTP server, or the development mailbox.
public protocol Mailer: Sendable {
    func send(_ mail: Mail) throws(AuthError)
}

/// Without SMTP, mail is kept in the database (`GET /auth/v1/mailbox`, service role) and told to
/// the log, as a local Supabase keeps it in its mail catcher.
public struct DevelopmentMailbox: Mailer {
    let store: any AuthStore
    let told: @Sendable (Mail) -> Void

    public init(store: any AuthStore, told: @escaping @Sendable (Mail) -> Void = { _ in }) {
        self.store = store
        self.told = told
    }

    public func send(_ mail: Mail) throws(AuthError) {
        do { try store.addMail(mail) } catch { throw .storeFailed(error) }
        told(mail)
    }
}

/// Where links may send a user back to (GoTrue's `GOTRUE_SITE_URL` and `GOTRUE_URI_ALLOW_LIST`).
public struct Redirects: Sendable {
    /// Where a link goes without an allowed `redirect_to`.
    public var siteURL: String
    /// Other addresses allowed; a trailing `*` allows everything under it.
    public var allowList: [String]

    public init(siteURL: String, allowList: [String] = []) {
        self.siteURL = siteURL
        self.allowList = allowList
    }

    /// `requested` when it is the site or on the list, else the site.
    public func resolve(_ requested: String?) -> String {
        guard let requested, !requested.isEmpty else { return siteURL }
        let allowed = ([siteURL] + allowList).contains { entry in
            entry.hasSuffix("*") ? requested.hasPrefix(String(entry.dropLast())) : (requested == entry || requested.hasPrefix(entry.hasSuffix("/") ? entry : entry + "/"))
        }
        return allowed ? requested : siteURL
    }
}

/// How auth mails: where mail goes, where its links lead, what it says, and whether a sign-up
/// waits for its confirmation.
public struct EmailSettings: Sendable {
    /// Nil: the development mailbox.
    public var mailer: (any Mailer)?
    /// Nil, or an empty site URL: links lead back to the API's own address.
    public var redirects: Redirects?
    public var templates = MailTemplates()
    /// Sign-ups and email changes wait for the mailed link or code (`--email-confirm required`,
    /// GoTrue's autoconfirm off); else they take effect at once, as a local Supabase does.
    public var confirmationRequired = false
    /// How often one address may be mailed (GoTrue's `GOTRUE_SMTP_MAX_FREQUENCY`).
    public var mailInterval: TimeInterval = 60

    public init(mailer: (any Mailer)? = nil, redirects: Redirects? = nil, templates: MailTemplates = MailTemplates(), confirmationRequired: Bool = false) {
        self.mailer = mailer
        self.redirects = redirects
        self.templates = templates
        self.confirmationRequired = confirmationRequired
    }
}

extension EmailSettings {
    /// Where template files are looked for, beside the app's migrations.
    public static let templatesFolder = "supabase/templates"

    /// From Supabase's and GoTrue's variables: `SMTP_*`, `GOTRUE_SITE_URL`,
    /// `GOTRUE_URI_ALLOW_LIST`, `GOTRUE_MAILER_AUTOCONFIRM`, `GOTRUE_SMTP_MAX_FREQUENCY`,
    /// `GOTRUE_MAILER_SUBJECTS_*`, `GOTRUE_MAILER_TEMPLATES_*`, and files in `templatesFolder`.
    ///
    /// - Throws: a message naming the variable or file that is not usable.
    public static func load(environment: [String: String], templatesFolder: String = templatesFolder) throws(AuthError) -> EmailSettings {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        var settings = EmailSettings()
        settings.mailer = try SMTPMailer.Settings.from(environment: environment).map { SMTPMailer($0) }
        let list = (environment["GOTRUE_URI_ALLOW_LIST"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if value("GOTRUE_SITE_URL") != nil || !list.isEmpty {
            // Without a site URL, the API's own address (filled in by the service).
            settings.redirects = Redirects(siteURL: value("GOTRUE_SITE_URL") ?? "", allowList: list)
        }
        if let autoconfirm = value("GOTRUE_MAILER_AUTOCONFIRM") {
            guard let on = ["true": true, "false": false][autoconfirm.lowercased()] else {
                throw AuthError(500, "configuration", "GOTRUE_MAILER_AUTOCONFIRM must be true or false, not \(autoconfirm)")
            }
            settings.confirmationRequired = !on
        }
        if let frequency = value("GOTRUE_SMTP_MAX_FREQUENCY") {
            guard let seconds = duration(frequency) else {
                throw AuthError(500, "configuration", "GOTRUE_SMTP_MAX_FREQUENCY must be a duration such as 60s, 1m or 1m30s, not \(frequency)")
            }
            settings.mailInterval = seconds
        }
        settings.templates = try MailTemplates.load(environment: environment, folder: templatesFolder)
        return settings
    }

    /// Go's durations as GoTrue reads them (`60s`, `1m30s`, `500ms`), or whole seconds.
    static func duration(_ text: String) -> TimeInterval? {
        if let seconds = Int(text), seconds >= 0 { return TimeInterval(seconds) }
        let units: [(String, TimeInterval)] = [("ms", 0.001), ("h", 3600), ("m", 60), ("s", 1)]
        var rest = Substring(text)
        var total: TimeInterval = 0
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isNumber || $0 == "." }
            guard let number = Double(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let (unit, scale) = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(unit.count)
            total += number * scale
        }
        return total
    }
}

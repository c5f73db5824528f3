import CCurl
import Foundation
import SoarCore
import SoarStore

/// Mail through an SMTP server, with libcurl speaking the protocol: STARTTLS when the server
/// offers it and always when there is a password to send (TLS from the start on port 465), AUTH
/// when a user is set, bounded by timeouts.
/// Configured by Supabase's names (`SMTP_HOST`, `SMTP_PORT`, `SMTP_USER`, `SMTP_PASS`,
/// `SMTP_ADMIN_EMAIL` the sender, `SMTP_SENDER_NAME`).
public struct SMTPMailer: Mailer {
    public struct Settings: Sendable {
        public var host: String
        public var port: Int
        public var user: String?
        public var password: String?
        public var sender: String
        public var senderName: String?
        /// Seconds a mail may take in all (a server that hangs fails within it).
        public var timeout = 15
        /// The CA certificates that vouch for the server (`SSL_CERT_FILE`, for a private CA);
        /// nil: the system's.
        public var caFile: String?

        public init(host: String, port: Int, user: String?, password: String?, sender: String, senderName: String?) {
            self.host = host
            self.port = port
            self.user = user
            self.password = password
            self.sender = sender
            self.senderName = senderName
        }

        /// From the environment, or nil without `SMTP_HOST`.
        ///
        /// - Throws: a message when `SMTP_HOST` is set and the rest is not usable.
        public static func from(environment: [String: String]) throws(AuthError) -> Settings? {
            func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
            guard let host = value("SMTP_HOST") else { return nil }
            let portText = value("SMTP_PORT") ?? "587"
            guard let port = Int(portText), (1...65535).contains(port) else { throw AuthError(500, "configuration", "SMTP_PORT must be a port number, not \(portText)") }
            guard let sender = value("SMTP_ADMIN_EMAIL") else { throw AuthError(500, "configuration", "SMTP_ADMIN_EMAIL (the sender's address) is required with SMTP_HOST") }
            var settings = Settings(host: host, port: port, user: value("SMTP_USER"), password: value("SMTP_PASS"), sender: sender, senderName: value("SMTP_SENDER_NAME"))
            settings.caFile = value("SSL_CERT_FILE")
            return settings
        }
    }

    let settings: Settings

    public init(_ settings: Settings) { self.settings = settings }

    /// libcurl's global set-up, once, before any thread uses it.
    private static let started: Void = { _ = curl_global_init(3) }()  // CURL_GLOBAL_DEFAULT

    public func send(_ mail: Mail) throws(AuthError) {
        Self.started
        guard let curl = curl_easy_init() else { throw AuthError(500, "unexpected_failure", "Error sending email: cannot start the mail client") }
        defer { curl_easy_cleanup(curl) }
        let scheme = settings.port == 465 ? "smtps" : "smtp"
        let message = Message(Data(Self.message(mail, from: settings).utf8))
        let recipients: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "<\(mail.to)>")
        defer { curl_slist_free_all(recipients) }
        var problem: CURLcode = CURLE_OK
        func set(_ code: CURLcode) { if problem == CURLE_OK { problem = code } }
        set(CCurl_set_string(curl, CURLOPT_URL, "\(scheme)://\(settings.host):\(settings.port)"))
        set(CCurl_set_string(curl, CURLOPT_MAIL_FROM, "<\(settings.sender)>"))
        set(CCurl_set_pointer(curl, CURLOPT_MAIL_RCPT, recipients.map { UnsafeMutableRawPointer($0) }))
        set(CCurl_set_long(curl, CURLOPT_UPLOAD, 1))
        // STARTTLS when offered; required when there is a password to send.
        let tls = settings.user == nil && settings.password == nil ? CURLUSESSL_TRY : CURLUSESSL_ALL
        set(CCurl_set_long(curl, CURLOPT_USE_SSL, Int(tls.rawValue)))
        set(CCurl_set_long(curl, CURLOPT_TIMEOUT, settings.timeout))
        // The wait for the server's answer to the mail's end is bounded only by this (else 120 s).
        set(CCurl_set_long(curl, CURLOPT_SERVER_RESPONSE_TIMEOUT, settings.timeout))
        set(CCurl_set_long(curl, CURLOPT_CONNECTTIMEOUT, 5))
        set(CCurl_set_long(curl, CURLOPT_NOSIGNAL, 1))
        if let caFile = settings.caFile { set(CCurl_set_string(curl, CURLOPT_CAINFO, caFile)) }
        if let user = settings.user { set(CCurl_set_string(curl, CURLOPT_USERNAME, user)) }
        if let password = settings.password { set(CCurl_set_string(curl, CURLOPT_PASSWORD, password)) }
        set(CCurl_set_read(curl, { buffer, size, count, context in
            Unmanaged<Message>.fromOpaque(context!).takeUnretainedValue().read(into: buffer!, max: size * count)
        }))
        let context = Unmanaged.passUnretained(message).toOpaque()
        set(CCurl_set_pointer(curl, CURLOPT_READDATA, context))
        if problem == CURLE_OK { problem = withExtendedLifetime(message) { curl_easy_perform(curl) } }
        guard problem == CURLE_OK else {
            let reply = CCurl_response_code(curl)
            let answered = reply >= 400 ? " (the mail server answered \(reply))" : ""
            throw AuthError(500, "unexpected_failure", "Error sending email: \(String(cString: curl_easy_strerror(problem)))\(answered)")
        }
    }

    /// The mail as RFC 5322 text: headers, a blank line, the body with CRLF line ends.
    static func message(_ mail: Mail, from settings: Settings) -> String {
        let from = settings.senderName.map { "\"\($0.replacingOccurrences(of: "\"", with: ""))\" <\(settings.sender)>" } ?? "<\(settings.sender)>"
        let date = DateFormatter()
        date.locale = Locale(identifier: "en_US_POSIX")
        date.timeZone = TimeZone(identifier: "UTC")
        date.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        let headers = [
            "From: \(from)", "To: <\(mail.to)>", "Subject: \(mail.subject.replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: " "))",
            "Date: \(date.string(from: Timestamp.parse(mail.createdAt) ?? Date()))", "Message-ID: <\(RandomUUID.lowercase())@\(settings.sender.split(separator: "@").last ?? "soar")>",
            "MIME-Version: 1.0",
        ]
        // libcurl doubles a line's leading dot itself.
        func lines(_ text: String) -> String { text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n") }
        let plain = "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + lines(mail.text)
        guard let html = mail.html else { return headers.joined(separator: "\r\n") + "\r\n" + plain + "\r\n" }
        // With a template's HTML: both, the plain text first (RFC 2046's alternatives, best last).
        let boundary = "soar-" + RandomUUID.lowercase()
        let parts = [plain, "Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + lines(html)]
        return headers.joined(separator: "\r\n") + "\r\nContent-Type: multipart/alternative; boundary=\"\(boundary)\"\r\n\r\n"
            + parts.map { "--\(boundary)\r\n\($0)\r\n" }.joined() + "--\(boundary)--\r\n"
    }

    /// The message libcurl reads, a piece at a time.
    private final class Message {
        let data: Data
        var offset = 0
        init(_ data: Data) { self.data = data }

        func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
            let count = min(max, data.count - offset)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { raw in
                UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + offset, byteCount: count)
            }
            offset += count
            return count
        }
    }
}

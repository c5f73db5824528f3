import Foundation
@testable import SoarAuth
import SoarStore
import SoarTesting
import Testing

/// The SMTP client's own edges: what the mail looks like, and a server that never answers.
@Suite(.timeLimit(.minutes(1))) struct SMTPMailerTests {
    static let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/smtp_peer.py").standardized.path
    let settings = SMTPMailer.Settings(host: "127.0.0.1", port: 1, user: nil, password: nil, sender: "auth@example.com", senderName: "My \"App\"")

    @Test func theMessageHasOneSubjectLineAndCRLFEnds() {
        let mail = Mail(to: "reader@example.com", subject: "Hi\r\nBcc: victim@example.com", text: "line one\n.line two", createdAt: "2026-12-05 10:00:00+00")
        let text = SMTPMailer.message(mail, from: settings)
        #expect(text.contains("Subject: Hi Bcc: victim@example.com\r\n"))
        #expect(!text.contains("\r\nBcc:"))
        #expect(text.contains("From: \"My App\" <auth@example.com>\r\n"))
        #expect(text.hasSuffix("\r\n\r\nline one\r\n.line two\r\n"), "libcurl stuffs the dot")
        #expect(text.contains("Date: Sat, 05 Dec 2026 10:00:00 +0000"))
    }

    @Test func aServerThatHangsFailsWithinTheTimeout() throws {
        let dir = TemporaryDirectory("soar-smtp-hang")
        let hanging = try BackgroundProcess("/usr/bin/env", ["python3", Self.peer, dir.path + "/mail.jsonl", "hang"])
        defer { hanging.stop() }
        let port = try #require(hanging.readLine().flatMap { Int($0) }, "\(hanging.standardError)")
        var settings = settings
        settings.port = port
        settings.timeout = 1
        let started = Date()
        #expect {
            try SMTPMailer(settings).send(Mail(to: "reader@example.com", subject: "Code", text: "123456", createdAt: "2026-12-05 10:00:00+00"))
        } throws: { error in
            (error as? AuthError)?.message.contains("Timeout") == true
        }
        #expect(Date().timeIntervalSince(started) < 10)
    }
}

/// Mail templates as files: found in the folder or named by GoTrue's variables, checked at start.
@Suite(.timeLimit(.minutes(1))) struct MailTemplateTests {
    @Test func aFolderTemplateBecomesTheHTMLPartWithValuesEscaped() throws {
        let dir = TemporaryDirectory("soar-templates")
        try "<a href=\"{{ .ConfirmationURL }}\">{{.Token}}</a> for {{ .Email }}".write(toFile: dir.path + "/magic_link.html", atomically: true, encoding: .utf8)
        let templates = try MailTemplates.load(environment: ["GOTRUE_MAILER_SUBJECTS_MAGIC_LINK": "Sign in to Notes"], folder: dir.path)
        let mail = templates.render(.magicLink, to: "a@example.com", values: ["ConfirmationURL": "https://x/verify?a=1&b=2", "Token": "123456", "Email": "a@example.com"], createdAt: "")
        #expect(mail.subject == "Sign in to Notes")
        #expect(mail.html == "<a href=\"https://x/verify?a=1&amp;b=2\">123456</a> for a@example.com")
        #expect(mail.text.contains("123456") && mail.text.contains("https://x/verify?a=1&b=2"))
        #expect(templates.render(.recovery, to: "a@example.com", values: [:], createdAt: "").html == nil, "no file: text only")
    }

    @Test func unusableTemplatesAreNamed() throws {
        let dir = TemporaryDirectory("soar-templates")
        try String(repeating: "x", count: MailTemplates.sizeLimit + 1).write(toFile: dir.path + "/recovery.html", atomically: true, encoding: .utf8)
        #expect { try MailTemplates.load(environment: [:], folder: dir.path) } throws: { error in
            (error as? AuthError)?.message.contains("recovery.html: the template is over 100 KB") == true
        }
        #expect { try MailTemplates.load(environment: ["GOTRUE_MAILER_TEMPLATES_INVITE": "x", "GOTRUE_MAILER_TEMPLATES_CONFIRMATION": "https://example.com/c.html"], folder: "/nonexistent") } throws: { error in
            (error as? AuthError)?.message.contains("give a file path") == true
        }
        #expect { try MailTemplates.load(environment: ["GOTRUE_MAILER_TEMPLATES_EMAIL_CHANGE": dir.path + "/missing.html"], folder: "/nonexistent") } throws: { error in
            (error as? AuthError)?.message.contains("missing.html): cannot read the file") == true
        }
        #expect { try MailTemplates.load(environment: ["GOTRUE_MAILER_SUBJECTS_RECOVERY": "{{ if .Token }}x{{ end }}"], folder: "/nonexistent") } throws: { error in
            (error as? AuthError)?.message.contains("GOTRUE_MAILER_SUBJECTS_RECOVERY:1: {{ if .Token }} is not one of") == true
        }
    }

    @Test func goDurationsAsGoTrueReadsThem() {
        #expect(EmailSettings.duration("60s") == 60)
        #expect(EmailSettings.duration("1m30s") == 90)
        #expect(EmailSettings.duration("500ms") == 0.5)
        #expect(EmailSettings.duration("2h") == 7200)
        #expect(EmailSettings.duration("45") == 45)
        #expect(EmailSettings.duration("soon") == nil && EmailSettings.duration("5x") == nil && EmailSettings.duration("-1") == nil)
    }
}

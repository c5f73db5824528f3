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

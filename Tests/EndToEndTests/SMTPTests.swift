import Foundation
import SoarCore
import SoarTesting
import Testing

/// Auth mail through a real SMTP server (PyPI's aiosmtpd): delivered, refused, and down.
@Suite(.timeLimit(.minutes(5))) struct SMTPTests {
    static let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/smtp_peer.py").standardized.path

    func serve(_ dir: TemporaryDirectory, smtpPort: String, extra: [String: String] = [:]) throws -> (BackgroundProcess, String, String) {
        let environment = ["SMTP_HOST": "127.0.0.1", "SMTP_PORT": smtpPort, "SMTP_ADMIN_EMAIL": "auth@example.com", "SMTP_SENDER_NAME": "Soar Test"]
            .merging(extra) { $1 }
        let server = try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/soar.db"], environment: environment)
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        return (server, url, anon)
    }

    func post(_ url: String, _ anon: String, _ path: String, _ body: String) throws -> (status: String, body: String) {
        let run = try ProcessRunner.run("curl", ["-s", "-w", "\n%{http_code}", "-X", "POST", url + path, "-H", "apikey: \(anon)", "-d", body])
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
    }

    @Test(.ownThread) func codesGoOutThroughSMTPAndAFailedMailLeavesNoAccount() throws {
        let dir = TemporaryDirectory("soar-smtp")
        let accepting = try BackgroundProcess("/usr/bin/env", ["python3", Self.peer, dir.path + "/mail.jsonl"])
        let port = try #require(accepting.readLine(), "\(accepting.standardError)")
        let (server, url, anon) = try serve(dir, smtpPort: port)
        #expect(try post(url, anon, "/auth/v1/otp", #"{"email":"reader@example.com"}"#).status == "200")
        let mail = try String(contentsOfFile: dir.path + "/mail.jsonl", encoding: .utf8)
        #expect(mail.contains(#""to": ["<reader@example.com>"]"#) || mail.contains("reader@example.com"), "\(mail)")
        #expect(mail.contains("Soar Test") && mail.contains("Subject: Confirm your email address"), "\(mail)")
        let code = try #require(mail.firstMatch(of: /\b(\d{6})\b/).map { String($0.1) })
        let verified = try post(url, anon, "/auth/v1/verify", #"{"type":"email","email":"reader@example.com","token":"\#(code)"}"#)
        #expect(verified.status == "200" && verified.body.contains("access_token"), "\(verified)")
        #expect(server.stop() == 0)
        _ = accepting.stop()

        // A server that refuses the recipient: GoTrue's error, and no account made.
        let refusing = try BackgroundProcess("/usr/bin/env", ["python3", Self.peer, dir.path + "/refused.jsonl", "refuse"])
        let refusingPort = try #require(refusing.readLine())
        let (again, url2, anon2) = try serve(dir, smtpPort: refusingPort)
        let refused = try post(url2, anon2, "/auth/v1/otp", #"{"email":"nobody@example.com"}"#)
        #expect(refused.status == "500" && refused.body.contains("Error sending email"), "\(refused)")
        let after = try post(url2, anon2, "/auth/v1/otp", #"{"email":"nobody@example.com","create_user":false}"#)
        #expect(after.body.contains("otp_disabled"), "no account was left behind: \(after)")
        #expect(again.stop() == 0)
        _ = refusing.stop()

        // No server at all: the same, within the mail timeout.
        let (down, url3, anon3) = try serve(dir, smtpPort: "1")
        let unreachable = try post(url3, anon3, "/auth/v1/otp", #"{"email":"late@example.com"}"#)
        #expect(unreachable.status == "500" && unreachable.body.contains("Error sending email"), "\(unreachable)")
        #expect(down.stop() == 0)
    }

    @Test(.ownThread) func mailGoesOverSTARTTLSWithAUTHAndAWrongPasswordIsReported() throws {
        let dir = TemporaryDirectory("soar-smtp-tls")
        let (cert, key) = (dir.path + "/cert.pem", dir.path + "/key.pem")
        let made = try ProcessRunner.run("openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert,
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let peer = try BackgroundProcess("/usr/bin/env", ["python3", Self.peer, dir.path + "/mail.jsonl", "tls-auth", cert, key, "relay", "relay-secret"])
        let port = try #require(peer.readLine(), "\(peer.standardError)")
        let tls = ["SMTP_USER": "relay", "SMTP_PASS": "relay-secret", "SSL_CERT_FILE": cert]
        let (server, url, anon) = try serve(dir, smtpPort: port, extra: tls)
        #expect(try post(url, anon, "/auth/v1/otp", #"{"email":"secure@example.com"}"#).status == "200")
        let mail = try String(contentsOfFile: dir.path + "/mail.jsonl", encoding: .utf8)
        #expect(mail.contains("secure@example.com") && mail.contains("Your sign-in link") == false && mail.contains("Confirm your email address"), "\(mail)")
        #expect(server.stop() == 0)

        // The wrong password: refused by the server, reported, no account left.
        let (wrong, url2, anon2) = try serve(dir, smtpPort: port, extra: tls.merging(["SMTP_PASS": "not-it"]) { $1 })
        let refused = try post(url2, anon2, "/auth/v1/otp", #"{"email":"other@example.com"}"#)
        #expect(refused.status == "500" && refused.body.contains("Error sending email"), "\(refused)")
        #expect(wrong.stop() == 0)
        // A CA that does not vouch for the server: no mail, no password sent in the clear.
        let (untrusting, url3, anon3) = try serve(dir, smtpPort: port, extra: tls.merging(["SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt"]) { $1 })
        let unverified = try post(url3, anon3, "/auth/v1/otp", #"{"email":"third@example.com"}"#)
        #expect(unverified.status == "500" && unverified.body.contains("Error sending email"), "\(unverified)")
        #expect(untrusting.stop() == 0)
        _ = peer.stop()
    }
}

import Foundation
import Testing

@testable import SoarCrypto
import SoarCore
import SoarTesting

@Suite(.timeLimit(.minutes(5))) struct P256KeyTests {
    @Test func anEncryptedKeyOpensWithItsPassphraseAndFailsClearlyWithoutNeverPrompting() throws {
        let key = try P256Key.generate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("soar-p8-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("key.p8").path
        let encrypted = directory.appendingPathComponent("encrypted.p8").path
        try key.privatePEM().write(toFile: plain, atomically: true, encoding: .utf8)
        let openssl = try ProcessRunner.run("/usr/bin/openssl", ["pkcs8", "-topk8", "-in", plain, "-out", encrypted, "-v2", "aes-256-cbc", "-passout", "pass:open sesame"])
        #expect(openssl.status == 0, "\(openssl.stderr)")
        let pem = try String(contentsOfFile: encrypted, encoding: .utf8)
        #expect(pem.contains("ENCRYPTED"))
        let opened = try P256Key(privatePEM: pem, passphrase: "open sesame")
        #expect(try opened.publicPEM() == key.publicPEM())
        #expect { try P256Key(privatePEM: pem) } throws: { "\($0)".contains("encrypted and no passphrase was given") }
        #expect { try P256Key(privatePEM: pem, passphrase: "wrong") } throws: { "\($0)".contains("wrong passphrase") }
    }

    @Test func onlyRealAddressLiteralsAreCheckedAsAddresses() {
        #expect(TLSClientContext.isIPAddress("127.0.0.1") && TLSClientContext.isIPAddress("::1"))
        #expect(!TLSClientContext.isIPAddress("10.1") && !TLSClientContext.isIPAddress("api.push.apple.com") && !TLSClientContext.isIPAddress("1.2.3.4.5"))
    }

    @Test func signaturesVerifyAndTamperingFails() throws {
        let key = try P256Key.generate()
        let message = Data("hello".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        let publicKey = try P256Key(publicPEM: key.publicPEM())
        #expect(!publicKey.isPrivate)
        #expect(publicKey.verify(signature, for: message))
        #expect(!publicKey.verify(signature, for: Data("hellO".utf8)))
        var bent = signature
        bent[5] ^= 1
        #expect(!publicKey.verify(bent, for: message))
        #expect(!publicKey.verify(signature.prefix(63), for: message))
        #expect(!(try P256Key.generate()).verify(signature, for: message))
    }

    @Test func p8RoundTrip() throws {
        let key = try P256Key.generate()
        let pem = try key.privatePEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let again = try P256Key(privatePEM: pem)
        #expect(try again.publicPEM() == key.publicPEM())
        #expect(try P256Key(publicPEM: pem).publicPEM() == key.publicPEM())
    }

    @Test func rejectsGarbageAndOtherCurves() {
        #expect(throws: OpenSSLError.self) { try P256Key(privatePEM: "not a key") }
        #expect(throws: OpenSSLError.self) { try P256Key(publicPEM: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
        #expect(throws: OpenSSLError.self) { try P256Key(publicPEM: "").sign(Data()) }
    }

    /// The signature is checked by the `openssl` command, an implementation we did not write.
    @Test func opensslCommandVerifiesOurSignature() throws {
        let key = try P256Key.generate()
        let message = Data("header.claims".utf8)
        let raw = try key.sign(message)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("soar-sig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try key.publicPEM().write(to: dir.appendingPathComponent("pub.pem"), atomically: true, encoding: .utf8)
        try message.write(to: dir.appendingPathComponent("msg"))
        try derSignature(raw).write(to: dir.appendingPathComponent("sig.der"))
        // The tests' own posix_spawn runner, as everywhere: Foundation's Process once crashed
        // copying its arguments while other tests' threads ran (CI saw it).
        let file = { (name: String) in dir.appendingPathComponent(name).path }
        let result = try ProcessRunner.run("/usr/bin/openssl", ["dgst", "-sha256", "-verify", file("pub.pem"), "-signature", file("sig.der"), file("msg")])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Raw r||s to the DER SEQUENCE of two INTEGERs that `openssl dgst` expects.
    func derSignature(_ raw: Data) -> Data {
        func integer(_ bytes: Data) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw.prefix(32)) + integer(raw.suffix(32))
        return Data([0x30, UInt8(body.count)] + body)
    }
}

@Suite(.timeLimit(.minutes(5))) struct JWTTests {
    @Test func es256RoundTrip() throws {
        let key = try P256Key.generate()
        let token = try JWT(header: ["kid": "ABC123DEFG"], claims: ["iss": "TEAM123456", "iat": 1_700_000_000]).signed(with: key)
        let decoded = try JWT.decode(token)
        #expect(decoded.jwt.algorithm == "ES256" && decoded.jwt.keyID == "ABC123DEFG")
        #expect(decoded.jwt.issuer == "TEAM123456" && decoded.jwt.issuedAt == 1_700_000_000)
        #expect(decoded.verify(with: try P256Key(publicPEM: key.publicPEM())))
        #expect(!decoded.verify(with: try P256Key.generate()))
        #expect(!decoded.verify(secret: Data("x".utf8)))
    }

    @Test func hs256RoundTrip() throws {
        let token = try JWT(header: ["typ": "JWT"], claims: ["sub": "u1", "role": "authenticated"]).signed(secret: Data("s3cret".utf8))
        let decoded = try JWT.decode(token)
        #expect(decoded.verify(secret: Data("s3cret".utf8)))
        #expect(!decoded.verify(secret: Data("other".utf8)))
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", "!!.e30.", "e30.!!.", "WzFd.e30.", "e30.e30.!!"])
    func malformedTokensAreErrors(text: String) {
        #expect(throws: JWTError.self) { try JWT.decode(text) }
    }

    @Test func base64URL() {
        let data = Data([0xfb, 0xff, 0xfe])
        #expect(data.base64URLEncodedString() == "-__-")
        #expect(Data(base64URLEncoded: "-__-") == data)
        #expect(Data(base64URLEncoded: "a===") == nil)
        #expect(Data(base64URLEncoded: "a+b/") == nil, "plain base64's alphabet is not base64url's")
        #expect(Data(base64URLEncoded: "abcde") == nil, "a length no encoding produces")
        // Every length agrees with Foundation's base64 once the alphabet and padding are mapped.
        let bytes = Data((0..<64).map { UInt8(($0 * 37 + 11) & 0xFF) })
        for length in 0...bytes.count {
            let slice = Data(bytes.prefix(length))
            let foundation = slice.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(slice.base64URLEncodedString() == foundation)
            #expect(Data(base64URLEncoded: foundation) == slice)
        }
    }
}

@Suite(.timeLimit(.minutes(5))) struct CertificateAuthorityTests {
    /// `openssl verify` accepts the chain and the server certificate names 127.0.0.1.
    @Test func issuesAServerCertificateOpenSSLAccepts() throws {
        let ca = try CertificateAuthority.generate(commonName: "Soar test CA")
        let server = try ca.issueServer(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("soar-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try ca.certificatePEM.write(to: dir.appendingPathComponent("ca.pem"), atomically: true, encoding: .utf8)
        try server.certificatePEM.write(to: dir.appendingPathComponent("server.pem"), atomically: true, encoding: .utf8)
        let file = { (name: String) in dir.appendingPathComponent(name).path }
        let result = try ProcessRunner.run("/usr/bin/openssl", ["verify", "-CAfile", file("ca.pem"), "-verify_ip", "127.0.0.1", "-purpose", "sslserver", file("server.pem")])
        #expect(result.status == 0, "\(result.stderr)")
    }
}
